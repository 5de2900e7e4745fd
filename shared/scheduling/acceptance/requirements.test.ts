import { describe, expect, it } from 'vitest';
import { clusterNode, nodePool, pod, pods } from '../../../testkit/builders';
import { claimOf, run, scheduledCount } from '../../../testkit/solve';

const affinity = (
  expr: {
    key: string;
    operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt' | 'Gte' | 'Lte';
    values?: string[];
  }[][],
) => ({
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: expr.map((e) => ({ matchExpressions: e })) },
  },
});

describe('acceptance: requirements, NodePools and instance types', () => {
  it('honours a nodeSelector on a well-known label', () => {
    const r = run({ pods: [pod({ cpu: '1', nodeSelector: { 'karpenter.k8s.aws/instance-family': 'c5' } })] });
    expect(r.nodeClaims[0]?.instanceTypeOptions.every((t) => t.info.family === 'c5')).toBe(true);
    expect(r.nodeClaims[0]?.labels['karpenter.k8s.aws/instance-family']).toBe('c5');
  });

  it('launches arm64 when asked and amd64 when arm64 is excluded', () => {
    const arm = run({ pods: [pod({ cpu: '1', nodeSelector: { 'kubernetes.io/arch': 'arm64' } })] });
    expect(arm.nodeClaims[0]?.instanceTypeOptions.every((t) => t.info.arch === 'arm64')).toBe(true);
    const amd = run({
      pods: [
        pod({ cpu: '1', affinity: affinity([[{ key: 'kubernetes.io/arch', operator: 'NotIn', values: ['arm64'] }]]) }),
      ],
    });
    expect(amd.nodeClaims[0]?.cheapest.instanceType).toBe('c5.large');
  });

  it('launches a GPU type for a pod that requests nvidia.com/gpu', () => {
    const r = run({ pods: [pod({ cpu: '1', requests: { 'nvidia.com/gpu': 1 } })] });
    expect(r.nodeClaims[0]?.cheapest.instanceType).toBe('g4dn.xlarge');
    expect(r.nodeClaims[0]?.instanceTypeOptions.every((t) => (t.allocatable['nvidia.com/gpu'] ?? 0) >= 1)).toBe(true);
  });

  it('reports an extended resource no type offers', () => {
    const r = run({ pods: [pod({ cpu: '1', requests: { 'aws.amazon.com/neuron': 1 } })] });
    expect(r.unschedulable[0]?.reason).toMatch(/no instance type has enough aws.amazon.com\/neuron: pod requests 1/);
  });

  it('says which NodePool requirement leaves it no instance type', () => {
    const r = run({
      nodePools: [
        nodePool({ requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['reserved'] }] }),
      ],
      pods: [pod({ cpu: '1' })],
    });
    expect(r.unschedulable[0]?.reason).toBe(
      'no NodePool could fit the pod: nodepool "default": no instance types are available to this nodepool: ' +
        'karpenter.sh/capacity-type [reserved] matches no offering (offered: on-demand, spot); reserved offerings ' +
        'come only from capacity reservations with room that the EC2NodeClass selects (capacityReservationSelectorTerms)',
    );
  });

  it('compares integers with Gt, Lt, Gte and Lte', () => {
    const gte = run({
      pods: [
        pod({
          cpu: '1',
          affinity: affinity([[{ key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gte', values: ['8'] }]]),
        }),
      ],
    });
    expect(gte.nodeClaims[0]?.instanceTypeOptions.every((t) => t.info.vcpu >= 8)).toBe(true);
    const range = run({
      pods: [
        pod({
          cpu: '1',
          affinity: affinity([
            [
              { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gt', values: ['2'] },
              { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lt', values: ['8'] },
            ],
          ]),
        }),
      ],
    });
    expect(range.nodeClaims[0]?.instanceTypeOptions.every((t) => t.info.vcpu === 4)).toBe(true);
    const lte = run({
      pods: [
        pod({
          cpu: '1',
          affinity: affinity([[{ key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lte', values: ['2'] }]]),
        }),
      ],
    });
    expect(lte.nodeClaims[0]?.instanceTypeOptions.every((t) => t.info.vcpu === 2)).toBe(true);
  });

  it('tries ORed required node-affinity terms in order', () => {
    const p = pod({
      cpu: '1',
      affinity: affinity([
        [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['x9'] }],
        [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['r5'] }],
      ]),
    });
    const r = run({ pods: [p] });
    expect(r.nodeClaims[0]?.instanceTypeOptions.every((t) => t.info.family === 'r5')).toBe(true);
    expect(r.stats.relaxations).toBeGreaterThan(0);
  });

  it('treats a custom label as unsatisfiable unless a NodePool declares it', () => {
    const r = run({ pods: [pod({ name: 'p', cpu: '1', nodeSelector: { team: 'data' } })] });
    expect(r.unschedulable[0]?.reason).toMatch(/nodepool "default": label "team" does not have known values/);
    const declared = run({
      pods: [pod({ cpu: '1', nodeSelector: { team: 'data' } })],
      nodePools: [nodePool({ requirements: [{ key: 'team', operator: 'In', values: ['data', 'web'] }] })],
    });
    expect(declared.nodeClaims[0]?.labels.team).toBe('data');
  });

  it('accepts a custom label a NodePool sets through template labels', () => {
    const r = run({
      pods: [pod({ cpu: '1', nodeSelector: { tier: 'gold' } })],
      nodePools: [nodePool({ labels: { tier: 'gold' } })],
    });
    expect(r.nodeClaims[0]?.labels.tier).toBe('gold');
  });

  it('rejects restricted labels', () => {
    const r = run({ pods: [pod({ cpu: '1', nodeSelector: { 'karpenter.sh/custom': 'x' } })] });
    expect(r.unschedulable[0]?.reason).toMatch(/label karpenter.sh\/custom is restricted/);
    const host = run({ pods: [pod({ cpu: '1', nodeSelector: { 'kubernetes.io/hostname': 'node-1' } })] });
    expect(host.unschedulable[0]?.reason).toMatch(/kubernetes.io\/hostname is restricted/);
  });

  it('allows labels in the exception domains', () => {
    const r = run({
      pods: [pod({ cpu: '1', nodeSelector: { 'node-restriction.kubernetes.io/team': 'a' } })],
      nodePools: [nodePool({ labels: { 'node-restriction.kubernetes.io/team': 'a' } })],
    });
    expect(r.nodeClaims).toHaveLength(1);
  });

  it('goes spot first and on-demand when the pod requires it', () => {
    const spot = run({ pods: [pod({ cpu: '1' })] });
    expect(spot.nodeClaims[0]?.cheapest.capacityType).toBe('spot');
    const od = run({ pods: [pod({ cpu: '1', nodeSelector: { 'karpenter.sh/capacity-type': 'on-demand' } })] });
    expect(od.nodeClaims[0]?.cheapest.capacityType).toBe('on-demand');
    expect(od.nodeClaims[0]?.labels['karpenter.sh/capacity-type']).toBe('on-demand');
  });

  it('explains an incompatible capacity type per NodePool, and an untolerated taint', () => {
    const r = run({
      pods: [pod({ cpu: '1', nodeSelector: { 'karpenter.sh/capacity-type': 'on-demand' } })],
      nodePools: [
        nodePool({
          name: 'default',
          requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }],
        }),
        nodePool({ name: 'gpu', taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }] }),
      ],
    });
    expect(r.unschedulable[0]?.reason).toBe(
      'no NodePool could fit the pod: nodepool "default": incompatible requirement karpenter.sh/capacity-type: pod requires [on-demand], nodepool allows [spot]; nodepool "gpu": taint nvidia.com/gpu=true:NoSchedule is not tolerated',
    );
  });

  it('applies NodePool taints to its claims and places tolerating pods there', () => {
    const pool = nodePool({ name: 'gpu', taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }] });
    const r = run({
      pods: [
        pod({
          cpu: '1',
          requests: { 'nvidia.com/gpu': 1 },
          tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists' }],
        }),
      ],
      nodePools: [pool],
    });
    expect(r.nodeClaims[0]?.taints).toEqual([{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }]);
  });

  it('uses the highest-weight NodePool that fits', () => {
    const r = run({
      pods: [pod({ cpu: '1' })],
      nodePools: [
        nodePool({ name: 'low', weight: 10 }),
        nodePool({ name: 'high', weight: 50 }),
        nodePool({ name: 'none' }),
      ],
    });
    expect(r.nodeClaims[0]?.nodePool).toBe('high');
  });

  it('falls back to a lower-weight pool when the heavier one cannot take the pod', () => {
    const r = run({
      pods: [pod({ cpu: '1', nodeSelector: { 'kubernetes.io/arch': 'arm64' } })],
      nodePools: [
        nodePool({
          name: 'amd',
          weight: 100,
          requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
        }),
        nodePool({ name: 'any', weight: 1 }),
      ],
    });
    expect(r.nodeClaims[0]?.nodePool).toBe('any');
  });

  it('respects NodePool cpu limits', () => {
    const r = run({
      pods: pods(10, { cpu: '1500m' }),
      nodePools: [nodePool({ limits: { cpu: '8' } })],
    });
    const cpu = r.nodeClaims.reduce(
      (s, c) => s + Math.max(...c.instanceTypeOptions.map((t) => t.capacity.cpu ?? 0)),
      0,
    );
    expect(cpu).toBeLessThanOrEqual(8000);
    expect(r.unschedulable.length).toBeGreaterThan(0);
    expect(r.unschedulable[0]?.reason).toMatch(/limits would be exceeded \(cpu: .* of 8 left\)/);
  });

  it('counts existing nodes of the pool against its limits', () => {
    const existing = clusterNode({
      name: 'n1',
      nodePool: 'default',
      instanceType: 'm5.4xlarge',
      allocatable: { cpu: 15890, memory: 60 * 2 ** 30, pods: 0 },
    });
    const r = run({
      pods: [pod({ cpu: '1' })],
      existingNodes: [existing],
      nodePools: [nodePool({ limits: { cpu: '16' } })],
    });
    expect(r.nodeClaims).toHaveLength(0);
    expect(r.unschedulable[0]?.reason).toMatch(/limits would be exceeded/);
  });

  it('overflows to a second pool when the first hits its limit', () => {
    const r = run({
      pods: pods(6, { cpu: '1500m' }),
      nodePools: [nodePool({ name: 'capped', weight: 10, limits: { cpu: '4' } }), nodePool({ name: 'open' })],
    });
    expect(scheduledCount(r)).toBe(6);
    expect(new Set(r.nodeClaims.map((c) => c.nodePool))).toEqual(new Set(['capped', 'open']));
  });

  it('keeps minValues distinct families among the options', () => {
    const pool = nodePool({
      requirements: [
        { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['c5', 'm5', 'r5', 'm6g'], minValues: 3 },
      ],
    });
    const r = run({ pods: [pod({ cpu: '1' })], nodePools: [pool], options: { maxInstanceTypes: 2 } });
    const families = new Set(r.nodeClaims[0]?.instanceTypeOptions.map((t) => t.info.family));
    expect(families.size).toBeGreaterThanOrEqual(3);
    expect(r.nodeClaims[0]?.requirements.find((q) => q.key === 'karpenter.k8s.aws/instance-family')?.minValues).toBe(3);
  });

  it('cannot launch when minValues cannot be met', () => {
    const pool = nodePool({
      requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['c5', 'm5'], minValues: 3 }],
    });
    const r = run({ pods: [pod({ cpu: '1' })], nodePools: [pool] });
    expect(r.unschedulable[0]?.reason).toMatch(/minValues 3 for karpenter.k8s.aws\/instance-family not met/);
  });

  it('cuts options to the configured maximum', () => {
    const r = run({ pods: [pod({ cpu: '100m' })], options: { maxInstanceTypes: 5 } });
    expect(r.nodeClaims[0]?.instanceTypeOptions).toHaveLength(5);
  });

  it('puts the chosen instance types into the claim requirements', () => {
    const r = run({ pods: [pod({ cpu: '1' })] });
    const it = r.nodeClaims[0]?.requirements.find((q) => q.key === 'node.kubernetes.io/instance-type');
    expect(it?.values).toEqual([...(r.nodeClaims[0]?.instanceTypeOptions.map((t) => t.name) ?? [])].sort());
    expect(claimOf(r, r.nodeClaims[0]?.pods[0] ?? 'x')).toBeDefined();
  });

  it('ignores an empty ORed nodeSelectorTerm, which matches no node, and holds a pod whose terms are all empty', () => {
    const zoneB = [{ key: 'topology.kubernetes.io/zone', operator: 'In' as const, values: ['us-east-1b'] }];
    const ored = run({ pods: [pod({ cpu: '1', affinity: affinity([[], zoneB]) })] });
    // Tried first and matching everything, the empty term used to place the pod in any zone.
    expect(ored.nodeClaims[0]?.requirements.find((q) => q.key === 'topology.kubernetes.io/zone')?.values).toEqual([
      'us-east-1b',
    ]);
    const none = run({ pods: [pod({ cpu: '1', affinity: affinity([[]]) })] });
    expect(none.nodeClaims).toEqual([]);
    expect(none.unschedulable[0]?.reason).toMatch(/only empty nodeSelectorTerms, which match no node/);
  });
});
