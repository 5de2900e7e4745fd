// Karpenter labels every NodeClaim with its pool's class, `karpenter.k8s.aws/ec2nodeclass: <nodeClassRef.name>`,
// and schedules on that label as on the pool label: a pod that selects a class only lands on a pool that uses it.
import { describe, expect, it } from 'vitest';
import { LabelEC2NodeClass } from '../../../shared/api/labels';
import { nodePool, pod } from '../../../testkit/builders';
import { claimOf, run } from '../../../testkit/solve';

describe('nodeclaimtemplate.go NodeClaim template labels: the node class', () => {
  it('should not plan a pod selecting another class on a pool', () => {
    const p = pod({ nodeSelector: { [LabelEC2NodeClass]: 'test' } });
    const r = run({ nodePools: [nodePool({ nodeClass: 'default' })], pods: [p] });
    expect(r.nodeClaims).toHaveLength(0);
    expect(r.unschedulable.map((u) => u.pod.metadata.name)).toEqual([p.metadata.name]);
  });

  it('should plan a pod selecting a class on the pool that uses it, labelled with that class', () => {
    const p = pod({ nodeSelector: { [LabelEC2NodeClass]: 'test' } });
    const pools = [nodePool({ name: 'default', nodeClass: 'default' }), nodePool({ name: 'other', nodeClass: 'test' })];
    const c = claimOf(run({ nodePools: pools, pods: [p] }), p);
    expect(c?.nodePool).toBe('other');
    expect(c?.labels[LabelEC2NodeClass]).toBe('test');
  });

  it("should label every claim with its pool's class", () => {
    const r = run({ nodePools: [nodePool({ nodeClass: 'default' })], pods: [pod()] });
    expect(r.nodeClaims[0]?.labels[LabelEC2NodeClass]).toBe('default');
  });
});
