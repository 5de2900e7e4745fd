// Memory of the Lambda-side adapter reading a large cluster: `npx tsx bench/kube-adapter-memory.ts [bound] [pending]`.
// The fake API server runs in a child process (test/fake-kube-api/serve.ts); this process lists every bound pod
// and every pending pod through KubeClusterApi (pages of 500, trimmed) and reports heap and peak RSS.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { buildKubeConfig } from '../shared/aws/eks-auth';
import { KubeClusterApi } from '../shared/kube';

const BOUND = Number(process.argv[2] ?? 30_000);
const PENDING = Number(process.argv[3] ?? 1_000);
const MiB = 1024 * 1024;
const hwm = () => Number(readFileSync('/proc/self/status', 'utf8').match(/VmHWM:\s+(\d+) kB/)?.[1] ?? 0) * 1024;

const server = spawn(
  process.execPath,
  ['--import', 'tsx', 'test/fake-kube-api/serve.ts', '--bound', String(BOUND), '--pending', String(PENDING)],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const lines = createInterface({ input: server.stdout });
const url = await new Promise<string>((resolve) =>
  lines.once('line', (l) => resolve((JSON.parse(l) as { url: string }).url)),
);

const before = process.memoryUsage();
const cluster = new KubeClusterApi(
  buildKubeConfig({ cluster: 'bench', endpoint: url, tokens: { getToken: async () => 't' } }),
);
const t0 = performance.now();
const bound = await cluster.listPods();
const pending = await cluster.listPendingPods();
const ms = Math.round(performance.now() - t0);
globalThis.gc?.();
const after = process.memoryUsage();
server.kill('SIGTERM');
console.log(
  JSON.stringify(
    {
      boundPods: bound.length,
      pendingPods: pending.length,
      listMs: ms,
      retainedHeapMiB: +((after.heapUsed - before.heapUsed) / MiB).toFixed(1),
      rssMiB: +(after.rss / MiB).toFixed(1),
      peakRssMiB: +(hwm() / MiB).toFixed(1),
      lambdaMemoryMiB: 1024,
    },
    null,
    2,
  ),
);
// Keep the lists alive until measured.
if (bound.length + pending.length < 0) console.log(bound, pending);
