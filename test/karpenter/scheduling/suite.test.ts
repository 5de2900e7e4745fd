// Karpenter's pkg/controllers/provisioning/scheduling/suite_test.go, translated: each test names the Describe /
// Context and It it mirrors, run through the public `solve`.
import { describe, expect, it } from 'vitest';
import type { NodeSelectorRequirement, Pod } from '../../../shared/api/kube';
import { clusterNode, nodePool, pod, pods } from '../../../testkit/builders';
import { Arch, Family, Hostname, InstanceTypeLabel, Zone } from '../../../testkit/karpenter-scheduling';
import { claimOf, run, scheduledCount, zoneOf } from '../../../testkit/solve';

const S = 'suite_test.go Scheduling';

function required(...exprs: NodeSelectorRequirement[]): Pod['spec']['affinity'] {
  return {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: exprs }] },
    },
  };
}

function preferred(...exprs: NodeSelectorRequirement[]): Pod['spec']['affinity'] {
  return {
    nodeAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: exprs } }],
    },
  };
}

const labelledPool = () => nodePool({ labels: { test: 'test-value' } });

describe(`${S} Custom Constraints NodePool with Labels`, () => {
  it("should schedule unconstrained pods that don't have matching node selectors", () => {
    const r = run({ nodePools: [labelledPool()], pods: [pod()] });
    expect(r.nodeClaims[0]?.labels.test).toBe('test-value');
  });

  it('should not schedule pods that have conflicting node selectors', () => {
    const r = run({ nodePools: [labelledPool()], pods: [pod({ nodeSelector: { test: 'different-value' } })] });
    expect(r.unschedulable).toHaveLength(1);
  });

  it('should not schedule pods that have node selectors with undefined key', () => {
    const r = run({ nodePools: [labelledPool()], pods: [pod({ nodeSelector: { undefined: 'x' } })] });
    expect(r.unschedulable).toHaveLength(1);
  });

  it('should schedule pods that have matching requirements', () => {
    const p = pod({ affinity: required({ key: 'test', operator: 'In', values: ['test-value', 'another'] }) });
    const r = run({ nodePools: [labelledPool()], pods: [p] });
    expect(claimOf(r, p)?.labels.test).toBe('test-value');
  });

  it('should not schedule pods that have conflicting requirements', () => {
    const p = pod({ affinity: required({ key: 'test', operator: 'NotIn', values: ['test-value'] }) });
    expect(run({ nodePools: [labelledPool()], pods: [p] }).unschedulable).toHaveLength(1);
  });
});

describe(`${S} Custom Constraints Well Known Labels`, () => {
  it('should use NodePool constraints', () => {
    const np = nodePool({ requirements: [{ key: Zone, operator: 'In', values: ['us-east-1b'] }] });
    expect(zoneOf(run({ nodePools: [np], pods: [pod()] }).nodeClaims[0])).toBe('us-east-1b');
  });

  it('should use node selectors', () => {
    const np = nodePool({ requirements: [{ key: Zone, operator: 'In', values: ['us-east-1a', 'us-east-1b'] }] });
    expect(
      zoneOf(run({ nodePools: [np], pods: [pod({ nodeSelector: { [Zone]: 'us-east-1b' } })] }).nodeClaims[0]),
    ).toBe('us-east-1b');
  });

  it('should not schedule nodes with a hostname selector', () => {
    const r = run({ pods: [pod({ nodeSelector: { 'kubernetes.io/hostname': 'red-node' } })] });
    expect(r.unschedulable).toHaveLength(1);
  });

  it('should not schedule the pod if nodeselector unknown', () => {
    const r = run({ pods: [pod({ nodeSelector: { [Zone]: 'unknown' } })] });
    expect(r.unschedulable).toHaveLength(1);
  });

  it('should not schedule if node selector outside of NodePool constraints', () => {
    const np = nodePool({ requirements: [{ key: Zone, operator: 'In', values: ['us-east-1a'] }] });
    expect(
      run({ nodePools: [np], pods: [pod({ nodeSelector: { [Zone]: 'us-east-1b' } })] }).unschedulable,
    ).toHaveLength(1);
  });

  it('should schedule compatible requirements with Operator=In', () => {
    const r = run({ pods: [pod({ affinity: required({ key: Zone, operator: 'In', values: ['us-east-1c'] }) })] });
    expect(zoneOf(r.nodeClaims[0])).toBe('us-east-1c');
  });

  it('should schedule compatible requirements with Operator=Gt', () => {
    const p = pod({ affinity: required({ key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gt', values: ['8'] }) });
    const r = run({ pods: [p] });
    expect(r.nodeClaims[0]?.instanceTypeOptions.every((t) => t.info.vcpu > 8)).toBe(true);
  });

  it('should schedule compatible requirements with Operator=Lt', () => {
    const p = pod({ affinity: required({ key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lt', values: ['4'] }) });
    const r = run({ pods: [p] });
    expect(r.nodeClaims[0]?.instanceTypeOptions.every((t) => t.info.vcpu < 4)).toBe(true);
  });

  it('should schedule compatible requirements with Operator=NotIn', () => {
    const p = pod({ affinity: required({ key: Zone, operator: 'NotIn', values: ['us-east-1a', 'us-east-1b'] }) });
    expect(zoneOf(run({ pods: [p] }).nodeClaims[0])).toBe('us-east-1c');
  });

  it('should not schedule incompatible preferences and requirements with Operator=In', () => {
    const p = pod({ affinity: required({ key: Zone, operator: 'In', values: ['unknown'] }) });
    expect(run({ pods: [p] }).unschedulable).toHaveLength(1);
  });

  it('should schedule compatible preferences and requirements with Operator=In', () => {
    const p = pod({
      affinity: {
        ...required({ key: Zone, operator: 'In', values: ['us-east-1a', 'us-east-1b', 'us-east-1c'] }),
        ...preferred({ key: Zone, operator: 'In', values: ['us-east-1b'] }),
      },
    });
    const a = required({ key: Zone, operator: 'In', values: ['us-east-1a', 'us-east-1b', 'us-east-1c'] });
    p.spec.affinity = {
      nodeAffinity: {
        ...a?.nodeAffinity,
        ...preferred({ key: Zone, operator: 'In', values: ['us-east-1b'] })?.nodeAffinity,
      },
    };
    expect(zoneOf(run({ pods: [p] }).nodeClaims[0])).toBe('us-east-1b');
  });

  it('should schedule incompatible preferences and requirements with Operator=In', () => {
    const a = required({ key: Zone, operator: 'In', values: ['us-east-1a', 'us-east-1b'] });
    const p = pod();
    p.spec.affinity = {
      nodeAffinity: {
        ...a?.nodeAffinity,
        ...preferred({ key: Zone, operator: 'In', values: ['unknown'] })?.nodeAffinity,
      },
    };
    const r = run({ pods: [p] });
    // The preference is relaxed; the claim keeps both required zones open for the fleet to choose.
    const zones = r.nodeClaims[0]?.requirements.find((q) => q.key === Zone)?.values;
    expect([...(zones ?? [])].sort()).toEqual(['us-east-1a', 'us-east-1b']);
  });

  it('should schedule incompatible preferences and requirements with Operator=NotIn', () => {
    const a = required({ key: Zone, operator: 'In', values: ['us-east-1a'] });
    const p = pod();
    p.spec.affinity = {
      nodeAffinity: {
        ...a?.nodeAffinity,
        ...preferred({ key: Zone, operator: 'NotIn', values: ['us-east-1a'] })?.nodeAffinity,
      },
    };
    expect(zoneOf(run({ pods: [p] }).nodeClaims[0])).toBe('us-east-1a');
  });

  it('should combine multidimensional node selectors, preferences and requirements', () => {
    const a = required(
      { key: Zone, operator: 'In', values: ['us-east-1a', 'us-east-1b'] },
      { key: InstanceTypeLabel, operator: 'In', values: ['m5.large', 'c5.large'] },
    );
    const p = pod({ nodeSelector: { [Zone]: 'us-east-1b' } });
    p.spec.affinity = {
      nodeAffinity: {
        ...a?.nodeAffinity,
        ...preferred({ key: InstanceTypeLabel, operator: 'In', values: ['m5.large'] })?.nodeAffinity,
      },
    };
    const c = run({ pods: [p] }).nodeClaims[0];
    expect(zoneOf(c)).toBe('us-east-1b');
    expect(c?.instanceTypeOptions.map((t) => t.name)).toEqual(['m5.large']);
  });
});

describe(`${S} Custom Constraints Constraints Validation`, () => {
  it('should not schedule pods that have node selectors with restricted labels', () => {
    // Karpenter's RestrictedLabels (the hostname), each as a required node affinity term.
    for (const label of [Hostname]) {
      const p = pod({ affinity: required({ key: label, operator: 'In', values: ['test'] }) });
      const r = run({ pods: [p] });
      expect(r.nodeClaims).toEqual([]);
      expect(r.unschedulable.map((u) => u.pod.metadata.name)).toEqual([p.metadata.name]);
    }
  });

  it('should schedule pods that have node selectors with label in wellknown label list', () => {
    const r = run({ pods: [pod({ nodeSelector: { [Arch]: 'amd64' } })] });
    expect(r.nodeClaims[0]?.labels[Arch]).toBe('amd64');
  });
});

describe(`${S} Custom Constraints Scheduling Logic`, () => {
  it('should not schedule pods that have node selectors with In operator and undefined key', () => {
    expect(
      run({ pods: [pod({ affinity: required({ key: 'test', operator: 'In', values: ['x'] }) })] }).unschedulable,
    ).toHaveLength(1);
  });

  it('should schedule pods that have node selectors with NotIn operator and undefined key', () => {
    const r = run({ pods: [pod({ affinity: required({ key: 'test', operator: 'NotIn', values: ['x'] }) })] });
    expect(r.nodeClaims).toHaveLength(1);
    expect(r.nodeClaims[0]?.labels.test).toBeUndefined();
  });

  it('should not schedule pods that have node selectors with Exists operator and undefined key', () => {
    expect(
      run({ pods: [pod({ affinity: required({ key: 'test', operator: 'Exists' }) })] }).unschedulable,
    ).toHaveLength(1);
  });

  it('should schedule pods that with DoesNotExists operator and undefined key', () => {
    expect(
      run({ pods: [pod({ affinity: required({ key: 'test', operator: 'DoesNotExist' }) })] }).nodeClaims,
    ).toHaveLength(1);
  });

  it('should schedule the pod with Exists operator and defined key', () => {
    const r = run({
      nodePools: [labelledPool()],
      pods: [pod({ affinity: required({ key: 'test', operator: 'Exists' }) })],
    });
    expect(r.nodeClaims).toHaveLength(1);
  });

  it('should not schedule the pod with DoesNotExists operator and defined key', () => {
    const r = run({
      nodePools: [labelledPool()],
      pods: [pod({ affinity: required({ key: 'test', operator: 'DoesNotExist' }) })],
    });
    expect(r.unschedulable).toHaveLength(1);
  });

  it('should schedule compatible pods to the same node', () => {
    const a = pod({ cpu: '100m', nodeSelector: { [Zone]: 'us-east-1a' } });
    const b = pod({
      cpu: '100m',
      affinity: required({ key: Zone, operator: 'In', values: ['us-east-1a', 'us-east-1b'] }),
    });
    const r = run({ pods: [a, b] });
    expect(r.nodeClaims).toHaveLength(1);
  });

  it('should schedule incompatible pods to the different node', () => {
    const a = pod({ cpu: '100m', nodeSelector: { [Zone]: 'us-east-1a' } });
    const b = pod({ cpu: '100m', nodeSelector: { [Zone]: 'us-east-1b' } });
    const r = run({ pods: [a, b] });
    expect(r.nodeClaims.map(zoneOf).sort()).toEqual(['us-east-1a', 'us-east-1b']);
  });

  it('Exists operator should not overwrite the existing value', () => {
    const p = pod();
    p.spec.affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            {
              matchExpressions: [
                { key: Zone, operator: 'In', values: ['us-east-1c'] },
                { key: Zone, operator: 'Exists' },
              ],
            },
          ],
        },
      },
    };
    expect(zoneOf(run({ pods: [p] }).nodeClaims[0])).toBe('us-east-1c');
  });
});

describe(`${S} Preferential Fallback`, () => {
  it('Required: should not relax the final term', () => {
    const p = pod({ affinity: required({ key: Zone, operator: 'In', values: ['invalid'] }) });
    expect(run({ pods: [p] }).unschedulable).toHaveLength(1);
  });

  it('Required: should relax multiple terms', () => {
    const p = pod();
    p.spec.affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: Zone, operator: 'In', values: ['invalid'] }] },
            { matchExpressions: [{ key: Zone, operator: 'In', values: ['invalid'] }] },
            { matchExpressions: [{ key: Zone, operator: 'In', values: ['us-east-1b'] }] },
          ],
        },
      },
    };
    expect(zoneOf(run({ pods: [p] }).nodeClaims[0])).toBe('us-east-1b');
  });

  it('Preferred: should relax all terms', () => {
    const p = pod();
    p.spec.affinity = {
      nodeAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 1, preference: { matchExpressions: [{ key: Zone, operator: 'In', values: ['invalid'] }] } },
          {
            weight: 1,
            preference: { matchExpressions: [{ key: InstanceTypeLabel, operator: 'In', values: ['invalid'] }] },
          },
        ],
      },
    };
    expect(run({ pods: [p] }).nodeClaims).toHaveLength(1);
  });

  it('Preferred: should relax to use lighter weights', () => {
    const p = pod();
    p.spec.affinity = {
      nodeAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          {
            weight: 100,
            preference: {
              matchExpressions: [
                { key: Zone, operator: 'In', values: ['us-east-1c'] },
                { key: InstanceTypeLabel, operator: 'In', values: ['invalid'] },
              ],
            },
          },
          { weight: 50, preference: { matchExpressions: [{ key: Zone, operator: 'In', values: ['us-east-1b'] }] } },
          { weight: 1, preference: { matchExpressions: [{ key: Zone, operator: 'In', values: ['us-east-1a'] }] } },
        ],
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: Zone, operator: 'In', values: ['us-east-1a', 'us-east-1b'] }] },
          ],
        },
      },
    };
    expect(zoneOf(run({ pods: [p] }).nodeClaims[0])).toBe('us-east-1b');
  });

  it('Preferred: should schedule even if preference is conflicting with requirement', () => {
    const p = pod();
    p.spec.affinity = {
      nodeAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 1, preference: { matchExpressions: [{ key: Zone, operator: 'NotIn', values: ['us-east-1a'] }] } },
        ],
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: Zone, operator: 'In', values: ['us-east-1a'] }] }],
        },
      },
    };
    expect(zoneOf(run({ pods: [p] }).nodeClaims[0])).toBe('us-east-1a');
  });
});

describe(`${S} Instance Type Compatibility`, () => {
  it('should not schedule if requesting more resources than any instance type has', () => {
    expect(run({ pods: [pod({ cpu: '512' })] }).unschedulable).toHaveLength(1);
  });

  it('should launch pods with different archs on different instances', () => {
    const r = run({ pods: [pod({ nodeSelector: { [Arch]: 'amd64' } }), pod({ nodeSelector: { [Arch]: 'arm64' } })] });
    expect(r.nodeClaims.map((c) => c.labels[Arch]).sort()).toEqual(['amd64', 'arm64']);
  });

  it('should exclude instance types that are not supported by the pod constraints (node affinity/instance type)', () => {
    const p = pod({ affinity: required({ key: InstanceTypeLabel, operator: 'In', values: ['c5.xlarge'] }) });
    expect(run({ pods: [p] }).nodeClaims[0]?.instanceTypeOptions.map((t) => t.name)).toEqual(['c5.xlarge']);
  });

  it('should exclude instance types that are not supported by the provider constraints (arch)', () => {
    const np = nodePool({ requirements: [{ key: Arch, operator: 'In', values: ['arm64'] }] });
    const r = run({ nodePools: [np], pods: [pod({ cpu: '2' })] });
    expect(r.nodeClaims[0]?.instanceTypeOptions.every((t) => t.info.arch === 'arm64')).toBe(true);
  });

  it('should launch pods with different instance type node selectors on different instances', () => {
    const r = run({
      pods: [
        pod({ nodeSelector: { [InstanceTypeLabel]: 'm5.large' } }),
        pod({ nodeSelector: { [InstanceTypeLabel]: 'c5.large' } }),
      ],
    });
    expect(r.nodeClaims).toHaveLength(2);
  });

  it('should launch pods with different zone selectors on different instances', () => {
    const r = run({
      pods: [pod({ nodeSelector: { [Zone]: 'us-east-1a' } }), pod({ nodeSelector: { [Zone]: 'us-east-1b' } })],
    });
    expect(r.nodeClaims).toHaveLength(2);
  });

  it("should launch pods with resources that aren't on any single instance type on different instances", () => {
    const gpu = pod({ requests: { 'nvidia.com/gpu': 1 } });
    const big = pod({ cpu: '14', nodeSelector: { [Family]: 'c5' } });
    const r = run({ pods: [gpu, big] });
    expect(r.nodeClaims).toHaveLength(2);
  });

  it("should fail to schedule a pod with resources requests that aren't on a single instance type", () => {
    expect(run({ pods: [pod({ cpu: '60', requests: { 'nvidia.com/gpu': 1 } })] }).unschedulable).toHaveLength(1);
  });
});

describe(`${S} Binpacking`, () => {
  it('should schedule a small pod on the smallest instance', () => {
    const c = run({ pods: [pod({ cpu: '100m', memory: '100Mi' })] }).nodeClaims[0];
    expect(c?.instanceTypeOptions[0]?.info.size).toBe('large');
  });

  it('should create new nodes when a node is at capacity', () => {
    const r = run({ pods: pods(40, { cpu: '1800m', nodeSelector: { [InstanceTypeLabel]: 'm5.large' } }) });
    expect(r.nodeClaims).toHaveLength(40);
  });

  it('should pack small and large pods together', () => {
    // As upstream: 40 large and 20 small pods, where two large and one small fill the largest type the pool may use
    // (m5.large here, upstream's default-instance-type): twenty nodes, each with two large pods and one small.
    const np = nodePool({ requirements: [{ key: InstanceTypeLabel, operator: 'In', values: ['m5.large'] }] });
    const amd64 = { [Arch]: 'amd64' };
    const all = [
      ...pods(40, { name: 'large', memory: '3.2G', nodeSelector: amd64 }),
      ...pods(20, { name: 'small', memory: '700M', nodeSelector: amd64 }),
    ];
    const r = run({ nodePools: [np], pods: all });
    expect(scheduledCount(r)).toBe(60);
    expect(r.nodeClaims).toHaveLength(20);
    expect(r.nodeClaims.every((c) => c.cheapest.instanceType === 'm5.large')).toBe(true);
  });

  it('should handle zero-quantity resource requests', () => {
    const r = run({ pods: [pod({ requests: { 'foo.com/weird-resources': 0 } })] });
    expect(r.nodeClaims).toHaveLength(1);
  });

  it("should not schedule pods that exceed every instance type's capacity", () => {
    expect(run({ pods: [pod({ memory: '2Ti' })] }).unschedulable).toHaveLength(1);
  });

  it('should create new nodes when a node is at capacity due to pod limits per node', () => {
    // m5.large holds 29 pods; daemon-free, 30 tiny pods need two of them.
    const r = run({ pods: pods(30, { cpu: '1m', nodeSelector: { [InstanceTypeLabel]: 'm5.large' } }) });
    expect(r.nodeClaims).toHaveLength(2);
  });

  it('should not schedule pods when initContainer resource requests are greater than available instance types', () => {
    const p = pod({ initContainers: [{ name: 'init', resources: { requests: { cpu: '512' } } }] });
    expect(run({ pods: [p] }).unschedulable).toHaveLength(1);
  });
});

describe(`${S} In-Flight Nodes`, () => {
  it('should not launch a second node if there is an in-flight node that can support the pod', () => {
    const n = clusterNode({ name: 'inflight', inflight: true, nodePool: 'default' });
    const r = run({ existingNodes: [n], pods: [pod({ cpu: '100m' })] });
    expect(r.nodeClaims).toHaveLength(0);
    expect(r.existingNodes[0]?.pods).toHaveLength(1);
  });

  it("should launch a second node if a pod won't fit on the existingNodes node", () => {
    const n = clusterNode({ name: 'inflight', inflight: true, nodePool: 'default', instanceType: 'm5.large' });
    const r = run({ existingNodes: [n], pods: [pod({ cpu: '3' })] });
    expect(r.nodeClaims).toHaveLength(1);
  });

  it("should launch a second node if a pod isn't compatible with the existingNodes node (node selector)", () => {
    const n = clusterNode({ name: 'inflight', inflight: true, zone: 'us-east-1a' });
    const r = run({ existingNodes: [n], pods: [pod({ nodeSelector: { [Zone]: 'us-east-1b' } })] });
    expect(zoneOf(r.nodeClaims[0])).toBe('us-east-1b');
  });

  it('should launch a second node if an in-flight node is terminating', () => {
    const n = clusterNode({ name: 'inflight', inflight: true, markedForDeletion: true });
    const r = run({ existingNodes: [n], pods: [pod()] });
    expect(r.nodeClaims).toHaveLength(1);
  });

  it('Taints: should not assume pod will schedule to a tainted node', () => {
    const n = clusterNode({ name: 'n', taints: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }] });
    const r = run({ existingNodes: [n], pods: [pod()] });
    expect(r.nodeClaims).toHaveLength(1);
  });

  it('Taints: should assume pod will schedule to a tainted node with a custom startup taint', () => {
    // As upstream: a pool with a startup taint launches a node for an 8 CPU pod (a limit, so also its request); the
    // pod goes, and the node, still carrying the startup taint and the not-ready taint, takes the next pod.
    const t = { key: 'foo.com/taint', value: 'tainted', effect: 'NoSchedule' as const };
    const np = nodePool({ startupTaints: [t] });
    const limited = pod({ containers: [{ name: 'app', resources: { limits: { cpu: '8' } } }] });
    const first = run({ nodePools: [np], pods: [limited] }).nodeClaims[0];
    expect(first?.startupTaints).toEqual([t]);
    const notReady = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' as const };
    const node1 = clusterNode({
      name: first?.name ?? '',
      nodePool: 'default',
      instanceType: first?.cheapest.instanceType ?? '',
      zone: first?.cheapest.zone ?? '',
      inflight: true,
      taints: [t, notReady],
      startupTaints: [t],
    });
    expect(node1.taints).toHaveLength(2);
    const second = pod();
    const r = run({ nodePools: [np], existingNodes: [node1], pods: [second] });
    expect(r.nodeClaims).toEqual([]);
    expect(r.existingNodes.find((e) => e.pods.includes(second))?.name).toBe(node1.name);
  });

  it('should schedule pods with the same host port to different nodes', () => {
    const port = {
      containers: [
        { name: 'app', ports: [{ containerPort: 80, hostPort: 80 }], resources: { requests: { cpu: '100m' } } },
      ],
    };
    const r = run({ pods: [pod(port), pod(port)] });
    expect(r.nodeClaims).toHaveLength(2);
    expect(scheduledCount(r)).toBe(2);
  });
});

describe(`${S} Existing Nodes`, () => {
  it('should schedule a pod to an existing node unowned by Karpenter', () => {
    const r = run({ existingNodes: [clusterNode({ name: 'unowned' })], pods: [pod()] });
    expect(r.existingNodes[0]?.pods).toHaveLength(1);
    expect(r.nodeClaims).toHaveLength(0);
  });

  it('should consider a pod incompatible with an existing node but compatible with NodePool', () => {
    const r = run({
      existingNodes: [clusterNode({ name: 'n', zone: 'us-east-1a' })],
      pods: [pod({ nodeSelector: { [Zone]: 'us-east-1c' } })],
    });
    expect(zoneOf(r.nodeClaims[0])).toBe('us-east-1c');
  });
});
