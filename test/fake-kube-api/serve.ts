// Runs the fake API server as its own process, seeded with realistic pods, so a benchmark measures only the client:
//   npx tsx test/fake-kube-api/serve.ts --bound 30000 --pending 1000
// Prints {"url": ...} on stdout once listening; stops on SIGTERM.
import { realisticPod } from './fixtures';
import { FakeKubeApi } from './server';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

const api = new FakeKubeApi();
api.recordRequests = false;
const bound = arg('bound', 0);
const pending = arg('pending', 0);
for (let i = 0; i < bound; i++) api.put('pods', realisticPod(i, { nodeName: `ip-10-0-${i % 300}` }));
for (let i = 0; i < pending; i++) api.put('pods', realisticPod(bound + i));
for (let n = 0; n < Math.ceil(bound / 100); n++) {
  api.put('nodes', {
    metadata: { name: `ip-10-0-${n}` },
    spec: {},
    status: { allocatable: { cpu: '4', memory: '16Gi', pods: '110' } },
  });
}
await api.start();
process.stdout.write(`${JSON.stringify({ url: api.url })}\n`);
process.once('SIGTERM', () => void api.stop().then(() => process.exit(0)));
