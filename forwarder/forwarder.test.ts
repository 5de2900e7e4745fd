// aws-sdk-client-mock: SQS must be unavailable for a while and then recover; the manifest-run forwarder sends to moto's SQS in test/aws-emulator/forwarder-manifest.test.ts.
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeKubeApi } from '../test/fake-kube-api/server';
import { mirroredNodeClaim, pendingPod, readyNode } from '../testkit/watch-objects';
import { Forwarder } from './forwarder';
import { startHealthServer } from './health';
import { KubeHttp } from './kube-http';
import { WATCHED } from './list-watch';
import { SqsSink } from './sqs-sink';

const sqsMock = mockClient(SQSClient);
const sqs = new SQSClient({ region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
const QUEUE = 'https://sqs.us-east-1.amazonaws.com/123456789012/karpless-prod.fifo';
const fast = { initialMs: 20, maxMs: 100, jitter: 0 };

let api: FakeKubeApi;
let forwarder: Forwarder | undefined;

function start(timing = { idleMs: 50, maxMs: 300 }) {
  forwarder = new Forwarder({
    cluster: 'prod',
    http: new KubeHttp({ server: api.url, token: () => 'sa-token' }),
    sink: new SqsSink(QUEUE, sqs),
    timing,
    backoff: fast,
    sendBackoff: fast,
    pageSize: 2,
  });
  forwarder.start();
  return forwarder;
}

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const sentBodies = () =>
  sqsMock.commandCalls(SendMessageCommand).map(
    (c) =>
      JSON.parse(c.args[0].input.MessageBody ?? '{}') as {
        kind: string;
        refs: { name: string }[];
      },
  );
const sentPods = () =>
  sentBodies()
    .filter((b) => b.kind === 'PodsPending')
    .flatMap((b) => b.refs.map((r) => r.name));

beforeEach(async () => {
  sqsMock.reset();
  sqsMock.on(SendMessageCommand).resolves({ MessageId: 'm' });
  api = new FakeKubeApi();
  await api.start();
});
afterEach(async () => {
  await forwarder?.stop();
  forwarder = undefined;
  await api.stop();
});

describe('forwarder end to end', () => {
  it('delivers a pending pod to SQS as PodsPending within the batching window', async () => {
    api.put('nodes', readyNode('n1'));
    const f = start({ idleMs: 1000, maxMs: 10_000 });
    await until(() => f.ready().ready);
    await until(() => sentBodies().some((b) => b.kind === 'NodeChanged'));
    sqsMock.resetHistory();

    const t0 = Date.now();
    api.put('pods', pendingPod('web-1'));
    api.put('pods', pendingPod('ds-1', 'kube-system', { daemonSet: true }));
    await until(() => sentPods().length > 0, 3000);
    const elapsed = Date.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(2000);

    const [call] = sqsMock.commandCalls(SendMessageCommand);
    const input = call?.args[0].input;
    expect(input?.QueueUrl).toBe(QUEUE);
    expect(input?.MessageGroupId).toBe('prod');
    expect(input?.MessageDeduplicationId).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(input?.MessageBody ?? '')).toMatchObject({
      v: 1,
      cluster: 'prod',
      kind: 'PodsPending',
      refs: [{ namespace: 'default', name: 'web-1', uid: 'uid-default-web-1' }],
    });

    const watches = api.requests.filter((r) => r.path === '/api/v1/pods' && r.query.get('watch') === 'true');
    expect(watches[0]?.query.get('fieldSelector')).toBe('spec.nodeName=,status.phase=Pending');
    expect(watches[0]?.query.get('allowWatchBookmarks')).toBe('true');
    expect(watches[0]?.headers.authorization).toBe('Bearer sa-token');
    const lists = api.requests.filter((r) => r.path === '/api/v1/pods' && !r.query.has('watch'));
    expect(lists[0]?.query.get('limit')).toBe('2');
  });

  it('sends every pending pod on start-up, paginated', async () => {
    for (let i = 0; i < 5; i++) api.put('pods', pendingPod(`p-${i}`));
    const f = start();
    await until(() => sentPods().length === 5);
    expect(f.watches[0]?.relists).toBe(1);
    expect(api.requests.filter((r) => r.path === '/api/v1/pods' && !r.query.has('watch'))).toHaveLength(3);
  });

  it('re-lists after a 410 Gone and resends the full pending set', async () => {
    api.put('pods', pendingPod('before'));
    const f = start();
    await until(() => sentPods().includes('before'));
    await until(() => api.watchCount === WATCHED.length);
    api.expireWatches();
    api.put('pods', pendingPod('after'));
    await until(() => sentPods().includes('after'));
    expect(f.watches[0]?.relists).toBe(2);
    expect(sentPods().filter((n) => n === 'before')).toHaveLength(2);
  });

  it('backs off while the API server is down and, after recovery, sends the full pending set', async () => {
    api.put('pods', pendingPod('old'));
    const f = start();
    await until(() => sentPods().includes('old'));
    api.setUnavailable(true);
    await until(() => !f.ready().ready);
    api.put('pods', pendingPod('during-outage'));
    await new Promise((r) => setTimeout(r, 150));
    expect(f.watches[0]?.failures).toBeGreaterThan(0);
    api.setUnavailable(false);
    await until(() => sentPods().includes('during-outage'));
    await until(() => f.ready().ready);
    expect(sentPods().filter((n) => n === 'old')).toHaveLength(2);
  });

  it('loses no pending pod while SQS is unavailable', async () => {
    sqsMock.on(SendMessageCommand).rejects(new Error('ServiceUnavailable'));
    const f = start();
    await until(() => f.watches.every((w) => w.synced));
    api.put('pods', pendingPod('a'));
    await until(() => f.flusher.consecutiveFailures >= 2);
    api.put('pods', pendingPod('b'));
    await until(() => f.flusher.consecutiveFailures >= 3);
    sqsMock.on(SendMessageCommand).resolves({ MessageId: 'm' });
    await until(() => f.flusher.consecutiveFailures === 0 && f.tracker.outboxSize === 0);
    const delivered = sqsMock
      .commandCalls(SendMessageCommand)
      .slice(-1)
      .flatMap((c) => (JSON.parse(c.args[0].input.MessageBody ?? '{}').refs as { name: string }[]).map((r) => r.name));
    expect(delivered.sort()).toEqual(['a', 'b']);
  });

  it('reports NodePool and EC2NodeClass changes', async () => {
    start();
    await until(() => (forwarder?.watches ?? []).every((w) => w.synced));
    api.put('nodepools', {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: 'default', generation: 1 },
      spec: {},
    });
    api.put('ec2nodeclasses', {
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name: 'default', generation: 1 },
      spec: {},
    });
    await until(
      () =>
        sentBodies()
          .filter((b) => b.kind === 'NodePoolChanged')
          .flatMap((b) => b.refs).length === 2,
    );
  });

  it('watches only its own NodeClaims and sends NodeClaimDeleted when one gets its deletion mark', async () => {
    api.put('nodeclaims', mirroredNodeClaim('default-a'));
    api.put('nodeclaims', mirroredNodeClaim('karpenter-b', { foreign: true }));
    const f = start();
    await until(() => f.ready().ready);
    const nodeClaimRequests = () => api.requests.filter((r) => r.path === '/apis/karpenter.sh/v1/nodeclaims');
    await until(() => nodeClaimRequests().some((r) => r.query.has('watch')));
    for (const r of nodeClaimRequests()) {
      expect(r.query.get('labelSelector')).toBe('app.kubernetes.io/managed-by=karpless');
    }
    // The mirror rewriting status is not news; `kubectl delete` on Karpenter's own NodeClaim is not Karpless's.
    api.put('nodeclaims', mirroredNodeClaim('default-a', { ready: false }));
    api.put('nodeclaims', mirroredNodeClaim('karpenter-b', { foreign: true, deleting: true }));
    await new Promise((r) => setTimeout(r, 200));
    expect(sentBodies().filter((b) => b.kind === 'NodeClaimDeleted')).toEqual([]);
    // What kubectl sends: a DELETE, which the API server turns into a deletion mark while the finalizer holds.
    expect((await fetch(`${api.url}/apis/karpenter.sh/v1/nodeclaims/default-a`, { method: 'DELETE' })).status).toBe(
      200,
    );
    await until(() => sentBodies().some((b) => b.kind === 'NodeClaimDeleted'));
    const sent = sentBodies().filter((b) => b.kind === 'NodeClaimDeleted');
    expect(sent).toMatchObject([{ cluster: 'prod', refs: [{ kind: 'NodeClaim', name: 'default-a' }] }]);
    // The finalizer off, the object goes: no message, and the forwarder forgets it.
    api.remove('nodeclaims', undefined, 'default-a');
    await until(() => f.tracker.knownCount('nodeclaims') === 0);
    expect(sentBodies().filter((b) => b.kind === 'NodeClaimDeleted')).toHaveLength(1);
  });

  it('sends a NodeOverlay change as NodePoolChanged', async () => {
    const f = start();
    await until(() => f.ready().ready);
    api.put('nodeoverlays', {
      apiVersion: 'karpenter.sh/v1alpha1',
      kind: 'NodeOverlay',
      metadata: { name: 'savings-plan', generation: 1 },
      spec: { requirements: [], price: '0.05' },
    });
    await until(() => sentBodies().some((b) => b.kind === 'NodePoolChanged'));
    expect(sentBodies().filter((b) => b.kind === 'NodePoolChanged')).toMatchObject([
      { refs: [{ kind: 'NodeOverlay', name: 'savings-plan' }] },
    ]);
  });

  it('stays ready in a cluster without the NodeClaim or NodeOverlay CRD, and watches them once they appear', async () => {
    let served = false;
    api.override((r) =>
      !served && /\/(nodeclaims|nodeoverlays)$/.test(r.path)
        ? { status: 404, body: { kind: 'Status', code: 404, reason: 'NotFound' } }
        : undefined,
    );
    forwarder = new Forwarder({
      cluster: 'prod',
      http: new KubeHttp({ server: api.url, token: () => 'sa-token' }),
      sink: new SqsSink(QUEUE, sqs),
      timing: { idleMs: 50, maxMs: 300 },
      backoff: fast,
      sendBackoff: fast,
      absentRetryMs: 100,
    });
    const f = forwarder;
    f.start();
    await until(() => f.ready().ready);
    const absent = f.watches.filter((w) => w.absent);
    expect(absent).toHaveLength(2);
    expect(f.live(Date.now() + 16 * 60_000)).toBe(true);
    // The CRDs are applied: the next look lists and watches them.
    served = true;
    await until(() => f.watches.every((w) => !w.absent));
    await until(() => api.watchCount === WATCHED.length);
    api.put('nodeclaims', mirroredNodeClaim('default-c', { deleting: true }));
    await until(() => sentBodies().some((b) => b.kind === 'NodeClaimDeleted'));
  });

  it('serves /healthz and /readyz', async () => {
    const f = start();
    const server = await startHealthServer(0, f, '127.0.0.1');
    try {
      const base = `http://127.0.0.1:${server.port}`;
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      await until(() => f.ready().ready);
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ ready: true, watches: { pods: { synced: true, healthy: true } } });
      api.setUnavailable(true);
      await until(() => !f.ready().ready);
      expect((await fetch(`${base}/readyz`)).status).toBe(503);
    } finally {
      server.close();
    }
  });
});

describe('liveness', () => {
  it('turns false only after a watch has failed continuously for the stall limit', async () => {
    const f = start();
    await until(() => f.ready().ready);
    expect(f.live()).toBe(true);
    api.setUnavailable(true);
    await until(() => f.watches.every((w) => w.failingSince !== undefined));
    expect(f.live()).toBe(true);
    expect(f.live(Date.now() + 16 * 60_000)).toBe(false);
    api.setUnavailable(false);
    await until(() => f.watches.every((w) => w.failingSince === undefined));
    expect(f.live(Date.now() + 16 * 60_000)).toBe(true);
  });
});
