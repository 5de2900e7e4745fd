// kubernetes-sigs/karpenter pkg/controllers/disruption/types.go (Candidate.IsEmpty) and emptiness_test.go: a node is
// empty when no reschedulable pod costs anything to evict, so pods that declared themselves free to disrupt (an
// eviction cost of 0 or below after clamping: a large negative pod-deletion-cost or priority) do not keep it. Empty
// nodes go through Emptiness, under the Empty budget and for every consolidation policy, WhenEmpty included, and are
// no candidates for Underutilized consolidation. Reschedulable follows Karpenter's IsReschedulable: terminating pods
// do not count, except a StatefulSet's, which the StatefulSet recreates under the same name.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../shared/api/kube';
import { planDisruption } from '../../../shared/disruption/plan';
import type { DisruptionPlan } from '../../../shared/disruption/types';
import { validate } from '../../../shared/disruption/validate';
import { ownedBy } from '../../../testkit/builders';
import { boundPod, disruptionInput, node, type PoolOptions, pool } from '../../../testkit/disruption';

const FREE = { 'controller.kubernetes.io/pod-deletion-cost': '-2147483647' };
/** A pod whose eviction cost clamps to 0 (1 - 2147483647 / 2^27 < -10). */
const freePod = (nodeName: string, cpu = '100m'): Pod => boundPod(nodeName, cpu, '512Mi', { annotations: FREE });

const decided = (plan: DisruptionPlan, reason?: string): string[] =>
  plan.commands.filter((c) => !reason || c.reason === reason).flatMap((c) => c.candidates.map((x) => x.name));

/** `candidate` with `pods`, beside a node half full of ordinary pods with room for them. */
function beside(pods: (nodeName: string) => Pod[], o: PoolOptions = {}): DisruptionPlan {
  const p = pool(o);
  const nodes = [
    node('candidate', { pool: p, type: 'm5.xlarge', pods: pods('candidate') }),
    node('stays', { pool: p, type: 'm5.2xlarge', cpus: ['1', '1', '1', '1'] }),
  ];
  return planDisruption(disruptionInput(nodes, { nodePools: [p] }));
}

describe('types.go IsEmpty', () => {
  it('will consider a node whose pods all have an eviction cost that clamps to 0 as empty', () => {
    const plan = beside((n) => [freePod(n), freePod(n)]);
    expect(decided(plan, 'Empty')).toEqual(['candidate']);
    expect(decided(plan, 'Underutilized')).toEqual([]);
  });

  it('will consider a node whose pods have a priority low enough to clamp their eviction cost to 0 as empty', () => {
    const plan = beside((n) => {
      const pod = boundPod(n, '100m');
      pod.spec.priority = -2147483648;
      return [pod];
    });
    expect(decided(plan, 'Empty')).toEqual(['candidate']);
  });

  it('will not consider a node with one pod that costs something to evict as empty', () => {
    const plan = beside((n) => [freePod(n), boundPod(n, '100m')]);
    expect(decided(plan, 'Empty')).toEqual([]);
    expect(decided(plan, 'Underutilized')).toEqual(['candidate']);
  });

  it('deletes such a node under consolidationPolicy WhenEmpty (the RFC: WhenEmpty approves a move whose disruption cost is the per-node cost)', () => {
    const plan = beside((n) => [freePod(n)], { policy: 'WhenEmpty' });
    expect(decided(plan, 'Empty')).toEqual(['candidate']);
  });

  it('spends the Empty budget, not the Underutilized one (nodes: 0 for Empty keeps it)', () => {
    const plan = beside((n) => [freePod(n)], { budgets: [{ nodes: '0', reasons: ['Empty'] }] });
    expect(decided(plan)).not.toContain('candidate');
    expect(plan.rejected.find((r) => r.name === 'candidate')?.blockers.join('\n')).toMatch(
      /allows no more Empty disruptions/,
    );
  });

  it('keeps the room its evicted pods need on the node that stays, so no later command counts it as free', () => {
    const p = pool();
    const nodes = [
      // Its two pods (3 cpu) are free to evict; only 'stays' (3.4 cpu free) has room for them.
      node('candidate', {
        pool: p,
        type: 'm5.xlarge',
        pods: [freePod('candidate', '1500m'), freePod('candidate', '1500m')],
      }),
      node('stays', { pool: p, type: 'm5.xlarge', cpus: ['500m'] }),
      // The cheapest type there is, so it can only go by moving its 1 cpu pod onto 'stays': the room the evicted
      // pods hold.
      node('other', { pool: p, type: 'm6g.large', cpus: ['1'] }),
    ];
    const plan = planDisruption(disruptionInput(nodes, { nodePools: [p] }));
    expect(decided(plan)).toEqual(['candidate']);
    expect(plan.commands[0]?.reason).toBe('Empty');
    expect(plan.rejected.map((r) => r.name)).toContain('other');
  });

  it('keeps the Empty command valid when a pod free to evict arrives, and drops it when a pod that costs something does', () => {
    const p = pool();
    const input = disruptionInput(
      [
        node('candidate', { pool: p, type: 'm5.xlarge', pods: [freePod('candidate')] }),
        node('stays', { pool: p, type: 'm5.2xlarge', cpus: ['1'] }),
      ],
      { nodePools: [p] },
    );
    const [cmd] = planDisruption(input).commands;
    expect(cmd?.reason).toBe('Empty');
    if (!cmd) return;
    const withPod = (pod: Pod) => ({
      ...input,
      nodes: input.nodes.map((n) =>
        n.node.name === 'candidate' ? { ...n, node: { ...n.node, pods: [...n.node.pods, pod] } } : n,
      ),
    });
    expect(validate(cmd, withPod(freePod('candidate'))).command?.candidates.map((c) => c.name)).toEqual(['candidate']);
    const dropped = validate(cmd, withPod(boundPod('candidate', '100m')));
    expect(dropped.command).toBeUndefined();
    expect(dropped.blockers).toEqual(['candidate: 1 pod(s) arrived']);
  });
});

describe('Karpless departs: an empty node whose pods would need a new node', () => {
  // Karpenter deletes it and provisions a node for the evicted pods, which is empty by the same rule and deleted in
  // turn after consolidateAfter: a loop. Karpless deletes an empty node only when those pods fit on the nodes that stay.
  const alone = (o: PoolOptions) => {
    const p = pool(o);
    return planDisruption(
      disruptionInput([node('candidate', { pool: p, type: 'm5.xlarge', pods: [freePod('candidate', '1500m')] })], {
        nodePools: [p],
      }),
    );
  };

  it('is kept under WhenEmpty, saying why', () => {
    const plan = alone({ policy: 'WhenEmpty' });
    expect(plan.commands).toEqual([]);
    expect(plan.rejected.find((r) => r.name === 'candidate')?.blockers).toEqual([
      'empty but its 1 pod(s) free to evict fit on no staying node: deleting it would launch a node for them',
    ]);
  });

  it('is judged by consolidation under WhenEmptyOrUnderutilized: replaced by a cheaper node that holds its pod', () => {
    const plan = alone({});
    expect(decided(plan, 'Empty')).toEqual([]);
    const [cmd] = plan.commands;
    expect(cmd?.reason).toBe('Underutilized');
    expect(cmd?.replacements).toHaveLength(1);
    expect(cmd?.savingPerHour).toBeGreaterThan(0);
  });
});

describe('emptiness_test.go', () => {
  const statefulPod = (n: string, terminating: boolean, kind: string): Pod => {
    const pod = boundPod(n, '100m');
    pod.metadata.ownerReferences = ownedBy(kind, 'db', { uid: 'db' });
    if (terminating) pod.metadata.deletionTimestamp = '2026-01-05T11:59:00Z';
    return pod;
  };

  it('will not consider a node with a terminating StatefulSet pod as empty', () => {
    const plan = beside((n) => [statefulPod(n, true, 'StatefulSet')]);
    expect(decided(plan, 'Empty')).toEqual([]);
  });

  it('will consider a node with terminating Deployment pods as empty', () => {
    const plan = beside((n) => [statefulPod(n, true, 'ReplicaSet'), statefulPod(n, true, 'ReplicaSet')]);
    expect(decided(plan, 'Empty')).toEqual(['candidate']);
  });
});
