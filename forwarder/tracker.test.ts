import { describe, expect, it } from 'vitest';
import { mirroredNodeClaim, pendingPod, readyNode } from '../testkit/watch-objects';
import { buildMessages } from './messages';
import { slimFor } from './slim';
import { ChangeTracker } from './tracker';

const podSlim = (name: string, extra: Parameters<typeof pendingPod>[2] = {}) =>
  slimFor('pods', pendingPod(name, 'default', extra));
const keys = (t: ChangeTracker) =>
  Object.fromEntries([...t.takeOutbox()].map(([kind, refs]) => [kind, [...refs.values()].map((r) => r.name)]));

const claimSlim = (name: string, extra: Parameters<typeof mirroredNodeClaim>[1] = {}) =>
  slimFor('nodeclaims', mirroredNodeClaim(name, extra));

describe('ChangeTracker: NodeClaim objects', () => {
  it('sends a NodeClaim once, when it gets its deletion mark; status churn and the mirror writes are not news', () => {
    const t = new ChangeTracker();
    expect(t.onEvent('nodeclaims', 'ADDED', claimSlim('a', { ready: false }))).toBe(false);
    expect(t.onEvent('nodeclaims', 'MODIFIED', claimSlim('a'))).toBe(false);
    expect(t.knownCount('nodeclaims')).toBe(0);
    expect(t.onEvent('nodeclaims', 'MODIFIED', claimSlim('a', { deleting: true }))).toBe(true);
    // The drain rewrites its status while the finalizer holds it: still the same deletion.
    expect(t.onEvent('nodeclaims', 'MODIFIED', claimSlim('a', { deleting: true, ready: false }))).toBe(false);
    const outbox = t.takeOutbox();
    expect([...outbox.keys()]).toEqual(['NodeClaimDeleted']);
    expect([...(outbox.get('NodeClaimDeleted')?.values() ?? [])]).toEqual([
      { kind: 'NodeClaim', name: 'a', uid: 'uid-a' },
    ]);
    // The finalizer comes off and the object goes: nothing to say, and nothing left in memory.
    expect(t.onEvent('nodeclaims', 'DELETED', claimSlim('a', { deleting: true }))).toBe(false);
    expect(t.knownCount('nodeclaims')).toBe(0);
  });

  it("ignores the deletion of a NodeClaim Karpless does not own (Karpenter's, in a cluster being migrated)", () => {
    const t = new ChangeTracker();
    expect(t.onEvent('nodeclaims', 'MODIFIED', claimSlim('k', { deleting: true, foreign: true }))).toBe(false);
    expect(t.outboxSize).toBe(0);
  });

  it('remembers only the NodeClaims being deleted, and resends them after a gap', () => {
    const t = new ChangeTracker();
    const items = [claimSlim('a'), claimSlim('b', { deleting: true }), claimSlim('c')];
    expect(t.onRelist('nodeclaims', items, { resendAll: true })).toBe(true);
    expect(t.knownCount('nodeclaims')).toBe(1);
    expect(keys(t)).toEqual({ NodeClaimDeleted: ['b'] });
    expect(t.onRelist('nodeclaims', items, { resendAll: false })).toBe(false);
    // After a 410 or an outage the receiver may have missed it: sent again.
    expect(t.onRelist('nodeclaims', items, { resendAll: true })).toBe(true);
    expect(keys(t)).toEqual({ NodeClaimDeleted: ['b'] });
    // Gone while the watch was down: forgotten.
    expect(t.onRelist('nodeclaims', [claimSlim('a')], { resendAll: false })).toBe(false);
    expect(t.knownCount('nodeclaims')).toBe(0);
  });

  it('does not put back a failed send for a NodeClaim object that went meanwhile', () => {
    const t = new ChangeTracker();
    t.onEvent('nodeclaims', 'MODIFIED', claimSlim('a', { deleting: true }));
    t.onEvent('nodeclaims', 'MODIFIED', claimSlim('b', { deleting: true }));
    const failed = t.takeOutbox();
    t.onEvent('nodeclaims', 'DELETED', claimSlim('a', { deleting: true }));
    t.restore(failed);
    expect(keys(t)).toEqual({ NodeClaimDeleted: ['b'] });
  });

  it('reports a NodeOverlay change as NodePoolChanged, apart from a NodePool of the same name', () => {
    const t = new ChangeTracker();
    const overlay = { kind: 'NodeOverlay', metadata: { name: 'default', generation: 1 } };
    const pool = { kind: 'NodePool', metadata: { name: 'default', generation: 1 } };
    expect(t.onEvent('nodeoverlays', 'ADDED', slimFor('nodeoverlays', overlay))).toBe(true);
    expect(t.onEvent('nodepools', 'ADDED', slimFor('nodepools', pool))).toBe(true);
    const refs = [...(t.takeOutbox().get('NodePoolChanged')?.values() ?? [])];
    expect(refs.map((r) => `${r.kind}/${r.name}`).sort()).toEqual(['NodeOverlay/default', 'NodePool/default']);
    // Status churn (no new generation) is not a change.
    expect(t.onEvent('nodeoverlays', 'MODIFIED', slimFor('nodeoverlays', overlay))).toBe(false);
  });
});

describe('ChangeTracker', () => {
  it('queues a newly pending pod once, however often it is modified', () => {
    const t = new ChangeTracker();
    expect(t.onEvent('pods', 'ADDED', podSlim('a'))).toBe(true);
    expect(t.onEvent('pods', 'MODIFIED', podSlim('a'))).toBe(false);
    expect(t.onEvent('pods', 'ADDED', podSlim('a'))).toBe(false);
    expect(keys(t)).toEqual({ PodsPending: ['a'] });
    expect(t.onEvent('pods', 'MODIFIED', podSlim('a'))).toBe(false); // already reported
  });

  it('ignores DaemonSet-owned and bound pods, and drops a pod that got scheduled before the flush', () => {
    const t = new ChangeTracker();
    expect(t.onEvent('pods', 'ADDED', podSlim('ds', { daemonSet: true }))).toBe(false);
    t.onEvent('pods', 'ADDED', podSlim('a'));
    t.onEvent('pods', 'MODIFIED', podSlim('a', { nodeName: 'n1' }));
    expect(t.outboxSize).toBe(0);
    expect(t.knownCount('pods')).toBe(0);
  });

  it('sends node changes only when readiness, taints or Karpenter labels change', () => {
    const t = new ChangeTracker();
    expect(t.onEvent('nodes', 'ADDED', slimFor('nodes', readyNode('n1')))).toBe(true);
    t.takeOutbox();
    expect(t.onEvent('nodes', 'MODIFIED', slimFor('nodes', readyNode('n1')))).toBe(false); // heartbeat
    expect(t.onEvent('nodes', 'MODIFIED', slimFor('nodes', readyNode('n1', { ready: false })))).toBe(true);
    expect(
      t.onEvent(
        'nodes',
        'MODIFIED',
        slimFor(
          'nodes',
          readyNode('n1', { ready: false, taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] }),
        ),
      ),
    ).toBe(true);
    expect(t.onEvent('nodes', 'DELETED', slimFor('nodes', readyNode('n1')))).toBe(true);
    expect(keys(t)).toEqual({ NodeChanged: ['n1'] });
  });

  it('sends a node change when a condition node repair watches changes, and not for others', () => {
    const t = new ChangeTracker();
    const node = (conditions: { type: string; status: string; lastTransitionTime?: string }[]) =>
      slimFor('nodes', readyNode('n1', { conditions }));
    t.onEvent('nodes', 'ADDED', node([{ type: 'KernelReady', status: 'True' }]));
    t.takeOutbox();
    expect(t.onEvent('nodes', 'MODIFIED', node([{ type: 'KernelReady', status: 'False' }]))).toBe(true);
    t.takeOutbox();
    // A heartbeat of the same status, and conditions no repair policy names (MemoryPressure), are no news.
    expect(
      t.onEvent('nodes', 'MODIFIED', node([{ type: 'KernelReady', status: 'False', lastTransitionTime: 'later' }])),
    ).toBe(false);
    expect(
      t.onEvent(
        'nodes',
        'MODIFIED',
        node([
          { type: 'KernelReady', status: 'False' },
          { type: 'MemoryPressure', status: 'True' },
        ]),
      ),
    ).toBe(false);
    expect(
      t.onEvent(
        'nodes',
        'MODIFIED',
        node([
          { type: 'KernelReady', status: 'False' },
          { type: 'AcceleratedHardwareReady', status: 'False' },
        ]),
      ),
    ).toBe(true);
  });

  it('reports NodePool and EC2NodeClass spec changes as NodePoolChanged with their kinds', () => {
    const t = new ChangeTracker();
    const np = (generation: number) => ({
      metadata: { name: 'default', generation, resourceVersion: String(generation * 10) },
    });
    t.onEvent('nodepools', 'ADDED', slimFor('nodepools', np(1)));
    t.onEvent('ec2nodeclasses', 'ADDED', slimFor('ec2nodeclasses', np(1)));
    const first = t.takeOutbox().get('NodePoolChanged');
    expect([...(first?.values() ?? [])].map((r) => r.kind)).toEqual(['NodePool', 'EC2NodeClass']);
    expect(t.onEvent('nodepools', 'MODIFIED', slimFor('nodepools', np(1)))).toBe(false); // status-only update
    expect(t.onEvent('nodepools', 'MODIFIED', slimFor('nodepools', np(2)))).toBe(true);
  });

  it('on a re-list, treats vanished objects as deleted and can resend every pending pod', () => {
    const t = new ChangeTracker();
    t.onEvent('pods', 'ADDED', podSlim('a'));
    t.onEvent('pods', 'ADDED', podSlim('b'));
    t.onEvent('nodes', 'ADDED', slimFor('nodes', readyNode('gone')));
    t.takeOutbox();
    t.onRelist('nodes', [], { resendAll: false });
    t.onRelist('pods', [podSlim('a'), podSlim('c')], { resendAll: false });
    expect(keys(t)).toEqual({ NodeChanged: ['gone'], PodsPending: ['c'] });
    expect(t.knownCount('pods')).toBe(2);
    t.onRelist('pods', [podSlim('a'), podSlim('c')], { resendAll: true });
    expect(keys(t)).toEqual({ PodsPending: ['a', 'c'] });
  });

  it('restores a failed batch without resurrecting pods that stopped pending meanwhile', () => {
    const t = new ChangeTracker();
    t.onEvent('pods', 'ADDED', podSlim('a'));
    t.onEvent('pods', 'ADDED', podSlim('b'));
    const inFlight = t.takeOutbox();
    t.onEvent('pods', 'DELETED', podSlim('b'));
    t.onEvent('pods', 'ADDED', podSlim('c'));
    t.restore(inFlight);
    expect(keys(t)).toEqual({ PodsPending: ['c', 'a'] });
  });
});

describe('buildMessages', () => {
  const outboxOf = (n: number) => {
    const t = new ChangeTracker();
    for (let i = 0; i < n; i++) t.onEvent('pods', 'ADDED', podSlim(`pod-with-a-longish-name-${i}`));
    return t.takeOutbox();
  };

  it('builds FIFO messages per the contract, grouped by cluster', () => {
    const [m] = buildMessages('prod-a', outboxOf(1), '2026-01-01T00:00:00.000Z');
    expect(m?.groupId).toBe('prod-a');
    expect(m?.deduplicationId).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(m?.body ?? '')).toEqual({
      v: 1,
      cluster: 'prod-a',
      kind: 'PodsPending',
      at: '2026-01-01T00:00:00.000Z',
      refs: [{ namespace: 'default', name: 'pod-with-a-longish-name-0', uid: 'uid-default-pod-with-a-longish-name-0' }],
    });
  });

  it('gives the same content the same deduplication id and different resourceVersions different ids', () => {
    const a = buildMessages('c', outboxOf(3), '2026-01-01T00:00:00.000Z');
    const b = buildMessages('c', outboxOf(3), '2026-01-01T00:00:05.000Z');
    expect(a[0]?.deduplicationId).toBe(b[0]?.deduplicationId);
    const t = new ChangeTracker();
    const slim = podSlim('x');
    t.onEvent('pods', 'ADDED', { ...slim, ref: { ...slim.ref, resourceVersion: '7' } });
    const withRv = buildMessages('c', t.takeOutbox(), 'now');
    t.onEvent('pods', 'DELETED', slim);
    t.onEvent('pods', 'ADDED', { ...slim, ref: { ...slim.ref, resourceVersion: '8' } });
    expect(buildMessages('c', t.takeOutbox(), 'now')[0]?.deduplicationId).not.toBe(withRv[0]?.deduplicationId);
  });

  it('splits a large backlog so every body stays under the limit and no ref is lost', () => {
    const outbox = outboxOf(10_000);
    const messages = buildMessages('c', outbox, '2026-01-01T00:00:00.000Z');
    expect(messages.length).toBeGreaterThan(1);
    const names = new Set<string>();
    for (const m of messages) {
      expect(Buffer.byteLength(m.body)).toBeLessThanOrEqual(250 * 1024);
      for (const r of JSON.parse(m.body).refs as { name: string }[]) names.add(r.name);
    }
    expect(names.size).toBe(10_000);
    expect(new Set(messages.map((m) => m.deduplicationId)).size).toBe(messages.length);
  });

  it('honours a small limit exactly', () => {
    const messages = buildMessages('c', outboxOf(50), 't', 1024);
    for (const m of messages) expect(Buffer.byteLength(m.body)).toBeLessThanOrEqual(1024);
    expect(messages.reduce((n, m) => n + m.keys.length, 0)).toBe(50);
  });
});
