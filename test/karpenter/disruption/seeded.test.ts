// Cases of kubernetes-sigs/karpenter's disruption, orchestration and termination suites that start from nodes and
// pods already running (Karpenter's tests build NodeClaim-and-Node pairs and bound pods), on the scenario runner's
// `seed` step: nodes of a chosen type and age, pods with or without owners and with start times.
import { describe, expect, it } from 'vitest';
import { DISRUPTION_SETTINGS_DEFAULTS, type DisruptionSettings } from '../../../shared/disruption/settings';
import {
  annotate,
  apply,
  disrupted,
  events,
  HOUR,
  liveClaims,
  MINUTE,
  nodeClass,
  nodePool,
  offset,
  patchPool,
  pdb,
  replacementsFor,
  run,
  scenario,
  seed,
  seededNode,
  seededPod,
  step,
} from '../../../testkit/karpenter';

const drift = (at: number) => step(at, patchPool({ template: { metadata: { labels: { release: 'v2' } } } }));
const DND = 'karpenter.sh/do-not-disrupt';

describe('consolidation_test.go (seeded nodes)', () => {
  it('Delete: can delete nodes (two old half-used m5.xlarge nodes, one goes)', async () => {
    const r = await run(
      scenario(10 * MINUTE, [
        step(0, apply(nodePool({ types: ['m5.xlarge'], consolidateAfter: '0s' }), nodeClass())),
        step(
          0,
          seed(
            seededNode('a', { type: 'm5.xlarge', age: 2 * HOUR }),
            seededNode('b', { type: 'm5.xlarge', age: 2 * HOUR }),
            seededPod('a1', 'a', { cpu: '1' }),
            seededPod('b1', 'b', { cpu: '1' }),
          ),
        ),
      ]),
    );
    expect(disrupted(r, 'Underutilized')).toHaveLength(1);
    expect(replacementsFor(r, 'Underutilized')).toEqual([]);
    expect(await liveClaims(r)).toHaveLength(1);
    expect(await r.world.cluster.listPendingPods()).toEqual([]);
  });

  it('does not consolidate nodes with pods that have a duration-based do-not-disrupt annotation that is still active', async () => {
    const r = await run(
      scenario(10 * MINUTE, [
        step(0, apply(nodePool({ types: ['m5.large'], consolidateAfter: '0s' }), nodeClass())),
        step(
          0,
          seed(
            seededNode('a', { age: HOUR }),
            seededPod('a1', 'a', { annotations: { [DND]: '2h' }, startedAgo: 30 * MINUTE }),
          ),
        ),
      ]),
    );
    expect(disrupted(r)).toEqual([]);
  });

  it('can consolidate nodes after duration-based do-not-disrupt annotation expires (30m, started 25m before)', async () => {
    const r = await run(
      scenario(15 * MINUTE, [
        step(0, apply(nodePool({ types: ['m5.large'], consolidateAfter: '0s' }), nodeClass())),
        step(
          0,
          seed(
            seededNode('a', { age: HOUR }),
            seededNode('b', { age: HOUR }),
            seededPod('a1', 'a', { annotations: { [DND]: '30m' }, startedAgo: 25 * MINUTE }),
            seededPod('b1', 'b', { annotations: { [DND]: '30m' }, startedAgo: 25 * MINUTE }),
          ),
        ),
      ]),
    );
    const [d] = disrupted(r, 'Underutilized');
    expect(d).toBeDefined();
    // Protected until 5m into the run (30m from a start 25m before it), free from then.
    expect(offset(d as never)).toBeGreaterThanOrEqual(5 * MINUTE);
    expect(offset(d as never)).toBeLessThan(8 * MINUTE);
  });

  it('should not consolidate if the action becomes invalid during the node TTL wait (do-not-disrupt added to the nodes)', async () => {
    const r = await run(
      scenario(
        12 * MINUTE,
        [
          step(0, apply(nodePool({ types: ['m5.large'], consolidateAfter: '0s' }), nodeClass())),
          step(0, seed(seededNode('a', { age: HOUR }), seededNode('b', { age: HOUR }), seededPod('b1', 'b'))),
          // The validation wait is 5m here: the annotation lands in it.
          step(
            2 * MINUTE,
            annotate({ kind: 'Node', selector: { 'karpenter.sh/nodepool': 'general' } }, { [DND]: 'true' }),
          ),
        ],
        { settings: settings({ consolidationValidationDelayMs: 5 * MINUTE }) },
      ),
    );
    expect(r.commands.dropped).toBeGreaterThanOrEqual(1);
    expect(disrupted(r)).toEqual([]);
    expect(await liveClaims(r)).toHaveLength(2);
  });
});

describe('expiration/suite_test.go (seeded nodes)', () => {
  it('Expiration: should expire a node that is older than expireAfter at once', async () => {
    const r = await run(
      scenario(5 * MINUTE, [
        step(0, apply(nodePool({ types: ['m5.large'], expireAfter: '1h', consolidateAfter: 'Never' }), nodeClass())),
        step(
          0,
          seed(
            seededNode('old', { age: 2 * HOUR }),
            seededNode('young', { age: 10 * MINUTE }),
            seededPod('o1', 'old', { cpu: '1' }),
            seededPod('y1', 'young', { cpu: '1' }),
          ),
        ),
      ]),
    );
    const expired = disrupted(r, 'Expired');
    expect(expired).toHaveLength(1);
    expect(offset(expired[0] as never)).toBeLessThanOrEqual(MINUTE);
  });
});

describe('queue_test.go (orchestration)', () => {
  it('should untaint nodes when a command times out (the replacement never initializes)', async () => {
    const r = await run(
      scenario(
        6 * MINUTE,
        [
          step(0, apply(nodePool({ types: ['m5.large'], consolidateAfter: 'Never' }), nodeClass())),
          step(0, seed(seededNode('a', { age: HOUR }), seededPod('a1', 'a', { cpu: '1' }))),
          drift(MINUTE), // decided at 1m, replacement launched at 1m15s, abandoned at 5m15s, retried at 6m15s
        ],
        { nodeReadyAfter: 30 * MINUTE, settings: settings({ replacementTimeoutMs: 4 * MINUTE }) },
      ),
    );
    expect(r.commands.dropped).toBeGreaterThanOrEqual(1);
    // The candidate was never drained: its pod stayed, and it is back without the disrupted taint.
    expect(r.podRemovals).toEqual([]);
    const node = r.world.cluster.getNode('a');
    expect(node?.spec.taints ?? []).not.toContainEqual(expect.objectContaining({ key: 'karpenter.sh/disrupted' }));
    expect(node?.spec.unschedulable ?? false).toBe(false);
  });
});

describe('termination/suite_test.go (seeded nodes, drained by drift)', () => {
  it('should delete nodes that have pods without an ownerRef', async () => {
    const r = await run(
      scenario(10 * MINUTE, [
        step(0, apply(nodePool({ types: ['m5.large'], consolidateAfter: 'Never' }), nodeClass())),
        step(0, seed(seededNode('a'), seededPod('bare', 'a', { owner: 'none' }))),
        drift(MINUTE),
      ]),
    );
    expect(r.podRemovals).toEqual([expect.objectContaining({ pod: 'default/bare', node: 'a', how: 'evicted' })]);
    expect(r.world.cluster.getPod('default/bare')).toBeUndefined(); // nothing recreates it
    expect(r.world.cluster.getNode('a')).toBeUndefined();
  });

  it('should not evict static pods', async () => {
    const r = await run(
      scenario(10 * MINUTE, [
        step(0, apply(nodePool({ types: ['m5.large'], consolidateAfter: 'Never' }), nodeClass())),
        step(0, seed(seededNode('a'), seededPod('static', 'a', { owner: 'Node' }), seededPod('app', 'a'))),
        drift(MINUTE),
      ]),
    );
    const removals = new Map(r.podRemovals.map((x) => [x.pod, x.how]));
    expect(removals.get('default/app')).toBe('evicted');
    expect(removals.get('default/static')).toBe('deleted'); // gone with its node, never evicted
  });

  it('should evict non-critical pods first (then DaemonSet pods, then critical pods)', async () => {
    const r = await run(
      scenario(10 * MINUTE, [
        step(0, apply(nodePool({ types: ['m5.xlarge'], consolidateAfter: 'Never' }), nodeClass())),
        step(
          0,
          seed(
            seededNode('a', { type: 'm5.xlarge' }),
            seededPod('critical', 'a', { owner: 'none', priorityClassName: 'system-cluster-critical' }),
            seededPod('ds', 'a', { owner: 'DaemonSet' }),
            seededPod('app', 'a', { owner: 'none' }),
          ),
        ),
        drift(MINUTE),
      ]),
    );
    const evicted = r.podRemovals.filter((x) => x.how === 'evicted').map((x) => x.pod);
    expect(evicted).toEqual(['default/app', 'default/ds', 'default/critical']);
  });

  it('should fail to evict pods that violate a PDB (the drain waits until the terminationGracePeriod)', async () => {
    const r = await run(
      scenario(20 * MINUTE, [
        step(
          0,
          apply(
            nodePool({ types: ['m5.large'], consolidateAfter: 'Never', terminationGracePeriod: '8m' }),
            nodeClass(),
            pdb('guard', 'guarded', { maxUnavailable: 0 }),
          ),
        ),
        step(0, seed(seededNode('a'), seededPod('g', 'a', { owner: 'none', labels: { app: 'guarded' } }))),
        drift(MINUTE),
      ]),
    );
    const [d] = disrupted(r, 'Drifted');
    const gone = events(r, 'Terminated').find((e) => e.nodeClaim === d?.nodeClaim);
    expect(gone).toBeDefined();
    expect(offset(gone as never) - offset(d as never)).toBeGreaterThanOrEqual(8 * MINUTE);
    expect(r.podRemovals).toEqual([expect.objectContaining({ pod: 'default/g', how: 'deleted' })]);
  });
});

function settings(o: Partial<DisruptionSettings>): DisruptionSettings {
  return { ...DISRUPTION_SETTINGS_DEFAULTS, ...o };
}
