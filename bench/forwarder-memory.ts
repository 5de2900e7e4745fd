// Peak RSS of the forwarder watching 10k pending pods: `npx tsx bench/forwarder-memory.ts [pods]`.
// Bundles forwarder/main.ts as the image does, runs it as a child process against a local fake API server (10k
// unschedulable pods of ~3 KB each, as kube-apiserver returns them with managedFields; 100 nodes and their mirrored
// NodeClaim objects) and a local fake SQS endpoint, then churns 20% of the pods, deletes 10 NodeClaims and reads the
// child's peak RSS (VmHWM) from /proc. The child runs on the image's Node release (testkit/image-node.ts);
// FORWARDER_NODE overrides the binary to compare.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realisticPod } from '../test/fake-kube-api/fixtures';
import { FakeKubeApi } from '../test/fake-kube-api/server';
import { imageNode } from '../testkit/image-node';
import { mirroredNodeClaim, readyNode } from '../testkit/watch-objects';

/** Keep in step with the node flags in forwarder/Dockerfile's CMD; FORWARDER_NODE_FLAGS overrides to compare. */
const FORWARDER_NODE_FLAGS = (
  process.env.FORWARDER_NODE_FLAGS ?? '--no-opt --no-maglev --max-semi-space-size=1 --max-old-space-size=48'
)
  .split(' ')
  .filter(Boolean);
const POD_COUNT = Number(process.argv[2] ?? 10_000);
const MiB = 1024 * 1024;
/** The Deployment's memory request (forwarder/manifests.ts): the peak should fit in what the scheduler reserves. */
const TARGET_MIB = 80;

function fakeSqs() {
  let refs = 0;
  let messages = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const input = JSON.parse(body) as { MessageBody: string };
      messages++;
      refs += (JSON.parse(input.MessageBody) as { refs: unknown[] }).refs.length;
      const md5 = createHash('md5').update(input.MessageBody).digest('hex');
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify({ MessageId: String(messages), MD5OfMessageBody: md5 }));
    });
  });
  return { server, counts: () => ({ refs, messages }) };
}

function procStatus(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(text.match(new RegExp(`${field}:\\s+(\\d+) kB`))?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

async function until(check: () => boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function main(): Promise<void> {
  const outdir = mkdtempSync(join(tmpdir(), 'karpless-forwarder-'));
  execFileSync(process.execPath, ['forwarder/build.mjs', outdir], { stdio: 'ignore' });

  const api = new FakeKubeApi();
  api.recordRequests = false;
  for (let i = 0; i < POD_COUNT; i++) api.put('pods', realisticPod(i));
  for (let i = 0; i < 100; i++) api.put('nodes', readyNode(`ip-10-0-${i}`));
  for (let i = 0; i < 100; i++) api.put('nodeclaims', mirroredNodeClaim(`default-${i}`));
  api.put('nodepools', {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'default', generation: 1 },
    spec: {},
  });
  await api.start();
  const sqs = fakeSqs();
  await new Promise<void>((r) => sqs.server.listen(0, '127.0.0.1', r));
  const sqsUrl = `http://127.0.0.1:${(sqs.server.address() as AddressInfo).port}`;

  const child = spawn(process.env.FORWARDER_NODE ?? imageNode(), [...FORWARDER_NODE_FLAGS, join(outdir, 'main.mjs')], {
    env: {
      PATH: process.env.PATH,
      KARPLESS_CLUSTER: 'bench',
      // The SQS client sends to the queue URL's host, so the queue lives on the fake endpoint.
      KARPLESS_QUEUE_URL: `${sqsUrl}/123456789012/karpless-bench.fifo`,
      KARPLESS_HEALTH_PORT: '0',
      KARPLESS_LOG_LEVEL: 'WARN',
      KUBE_API_URL: api.url,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'bench',
      AWS_SECRET_ACCESS_KEY: 'bench',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const pid = child.pid as number;
  let peakSampled = 0;
  const sampler = setInterval(() => {
    peakSampled = Math.max(peakSampled, procStatus(pid).rss);
  }, 20);

  const t0 = Date.now();
  await until(() => sqs.counts().refs >= POD_COUNT, 'initial pending set delivered');
  const initialMs = Date.now() - t0;
  // Churn: 10% of the pods get scheduled (leave), 10% new ones arrive, 10% are modified in place.
  for (let i = 0; i < POD_COUNT / 10; i++) {
    api.remove('pods', `team-${i % 50}`, `worker-${i}`);
    api.put('pods', realisticPod(POD_COUNT + i));
    api.put('pods', realisticPod(POD_COUNT / 2 + i));
  }
  // `kubectl delete nodeclaim` on a tenth of them: the deletion marks.
  for (let i = 0; i < 10; i++) api.put('nodeclaims', mirroredNodeClaim(`default-${i}`, { deleting: true }));
  await until(() => sqs.counts().refs >= POD_COUNT + POD_COUNT / 10 + 10, 'churn delivered');
  await new Promise((r) => setTimeout(r, 3000));
  const { rss, hwm } = procStatus(pid);
  clearInterval(sampler);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  await api.stop();
  sqs.server.close();

  const result = {
    pods: POD_COUNT,
    nodeClaims: 100,
    node: execFileSync(process.env.FORWARDER_NODE ?? imageNode(), ['--version'], { encoding: 'utf8' }).trim(),
    initialDeliveryMs: initialMs,
    messages: sqs.counts().messages,
    refsDelivered: sqs.counts().refs,
    steadyRssMiB: +(rss / MiB).toFixed(1),
    peakRssMiB: +(Math.max(hwm, peakSampled) / MiB).toFixed(1),
    targetMiB: TARGET_MIB,
  };
  console.log(JSON.stringify(result, null, 2));
  if (result.peakRssMiB > TARGET_MIB) process.exitCode = 1;
}

await main();
