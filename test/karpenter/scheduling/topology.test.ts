// Karpenter's pkg/controllers/provisioning/scheduling/topology_test.go, translated: each test names the Describe /
// Context and It it mirrors. Karpless pins a claim to one zone and capacity type as soon as a constrained pod joins
// it (as Karpenter narrows its claims), so per-zone counts are exact when the plan is made.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../shared/api/kube';
import { clusterNode, nodePool, pod, pods } from '../../../testkit/builders';
import {
  affinityTerm,
  CapacityType,
  clusterSkew,
  Hostname,
  labels,
  nodeSkew,
  provisionRounds,
  skew,
  spread,
  Zone,
} from '../../../testkit/karpenter-scheduling';
import { claimOf, run, scheduledCount, zoneOf } from '../../../testkit/solve';

const T = 'topology_test.go Topology';

describe(`${T}`, () => {
  it('should ignore unknown topology keys', () => {
    const constrained = pod({ labels, topologySpreadConstraints: [spread('unknown')] });
    const plain = pod();
    const r = run({ pods: [constrained, plain] });
    expect(r.unschedulable.map((u) => u.pod.metadata.name)).toEqual([constrained.metadata.name]);
    expect(claimOf(r, plain)).toBeDefined();
  });

  it('should not spread when a nil label selector is defined', () => {
    const c = { ...spread(Zone), labelSelector: undefined };
    const r = run({ pods: pods(5, { labels, cpu: '100m', topologySpreadConstraints: [c] }) });
    expect(scheduledCount(r)).toBe(5);
    expect(r.nodeClaims).toHaveLength(1);
  });
});

describe(`${T} Zonal`, () => {
  it('should balance pods across zones (match labels)', () => {
    const r = run({ pods: pods(4, { labels, cpu: '100m', topologySpreadConstraints: [spread(Zone)] }) });
    expect(skew(r, Zone)).toEqual([2, 1, 1]);
  });

  it('should balance pods across zones (match expressions)', () => {
    const c = spread(Zone, { labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['test'] }] } });
    const r = run({ pods: pods(4, { labels, cpu: '100m', topologySpreadConstraints: [c] }) });
    expect(skew(r, Zone)).toEqual([2, 1, 1]);
  });

  it('should respect NodePool zonal constraints', () => {
    const np = nodePool({ requirements: [{ key: Zone, operator: 'In', values: ['us-east-1a', 'us-east-1b'] }] });
    const r = run({
      nodePools: [np],
      pods: pods(4, { labels, cpu: '100m', topologySpreadConstraints: [spread(Zone)] }),
    });
    expect(skew(r, Zone)).toEqual([2, 2]);
  });

  it('should respect NodePool zonal constraints (subset) with labels', () => {
    const np = nodePool({ labels: { [Zone]: 'us-east-1b' } });
    const r = run({
      nodePools: [np],
      pods: pods(4, { labels, cpu: '100m', topologySpreadConstraints: [spread(Zone)] }),
    });
    expect(skew(r, Zone)).toEqual([4]);
    expect(zoneOf(r.nodeClaims[0])).toBe('us-east-1b');
  });

  it('should respect NodePool zonal constraints (subset) with labels across NodePools', () => {
    const a = nodePool({ name: 'a', labels: { [Zone]: 'us-east-1a' } });
    const b = nodePool({ name: 'b', labels: { [Zone]: 'us-east-1b' } });
    const r = run({
      nodePools: [a, b],
      pods: pods(4, { labels, cpu: '100m', topologySpreadConstraints: [spread(Zone)] }),
    });
    expect(skew(r, Zone)).toEqual([2, 2]);
  });

  it('should respect NodePool zonal constraints (existing pod)', () => {
    // The existing pod fills its node, so the node cannot take the new pods; it still counts in us-east-1c.
    const existing = clusterNode({
      name: 'n1',
      zone: 'us-east-1c',
      instanceType: 'm5.large',
      pods: [pod({ labels, cpu: '1100m', nodeName: 'n1' })],
    });
    const np = nodePool({ requirements: [{ key: Zone, operator: 'In', values: ['us-east-1a', 'us-east-1b'] }] });
    const r = run({
      nodePools: [np],
      existingNodes: [existing],
      pods: pods(6, { labels, cpu: '1100m', topologySpreadConstraints: [spread(Zone)] }),
    });
    // Two per reachable zone before the skew against us-east-1c's one would break: ConsistOf(1, 2, 2).
    expect(skew(r, Zone)).toEqual([2, 2]);
    expect(r.unschedulable).toHaveLength(2);
  });

  it('should only schedule to minimum domains if already violating max skew', () => {
    const n1 = clusterNode({ name: 'n1', zone: 'us-east-1a', pods: pods(3, { labels, cpu: '10m', nodeName: 'n1' }) });
    const r = run({
      existingNodes: [n1],
      nodePools: [nodePool()],
      pods: pods(4, { labels, cpu: '100m', topologySpreadConstraints: [spread(Zone)] }),
    });
    // 1a holds 3: the next four go to 1b and 1c only, two each.
    expect(r.existingNodes[0]?.pods).toHaveLength(0);
    expect(skew(r, Zone)).toEqual([2, 2]);
    expect(r.nodeClaims.every((c) => zoneOf(c) !== 'us-east-1a')).toBe(true);
  });

  it('should not violate max-skew when unsat = do not schedule', () => {
    const np = nodePool({ requirements: [{ key: Zone, operator: 'In', values: ['us-east-1a'] }] });
    const n = clusterNode({ name: 'n1', zone: 'us-east-1b', pods: [pod({ labels, cpu: '10m', nodeName: 'n1' })] });
    const cordoned = { ...n, markedForDeletion: true };
    const r = run({
      nodePools: [np],
      existingNodes: [cordoned],
      pods: pods(5, { labels, cpu: '100m', topologySpreadConstraints: [spread(Zone)] }),
    });
    // 1b holds one and takes no more; 1a may reach two.
    expect(skew(r, Zone)).toEqual([2]);
    expect(r.unschedulable).toHaveLength(3);
  });

  it('should only count running/scheduled pods with matching labels scheduled to nodes with a corresponding domain', () => {
    // As upstream, the existing nodes have no room, so only new claims take the two pending pods. Upstream's two
    // unbound ignored pods (pending without PodScheduled=False, and terminating) never reach the solver: the
    // provisioner hands it only provisionable pods; a bound terminating pod stands in for the terminating one. The
    // bound ignored pods sit on a node of us-east-1c, the zone the plan must still fill, rather than beside the
    // counted ones, where counting them would change nothing.
    const full = { allocatable: {} };
    const n1 = clusterNode({ name: 'n1', zone: 'us-east-1a', ...full });
    const n2 = clusterNode({ name: 'n2', zone: 'us-east-1b', ...full });
    const n3 = clusterNode({ name: 'n3', ...full });
    delete n3.labels[Zone]; // missing topology domain
    const n4 = clusterNode({ name: 'n4', zone: 'us-east-1c', ...full });
    const on = (node: string, o: Parameters<typeof pod>[0] = {}) => pod({ labels, nodeName: node, ...o });
    const terminating = on('n4');
    terminating.metadata.deletionTimestamp = new Date().toISOString();
    n4.pods = [
      on('n4', { labels: {} }), // ignored, missing labels
      on('n4', { namespace: 'wrong-namespace' }), // ignored, wrong namespace
      terminating, // ignored, terminating
      on('n4', { status: { phase: 'Failed' } }), // ignored, phase=Failed
      on('n4', { status: { phase: 'Succeeded' } }), // ignored, phase=Succeeded
    ];
    n3.pods = [on('n3')]; // ignored, no domain on node
    n1.pods = [on('n1'), on('n1')];
    n2.pods = [on('n2')];
    const existingNodes = [n1, n2, n3, n4];
    const r = run({ existingNodes, pods: pods(2, { labels, topologySpreadConstraints: [spread(Zone)] }) });
    expect(r.unschedulable).toEqual([]);
    expect(clusterSkew(r, existingNodes, Zone)).toEqual([2, 2, 1]);
  });

  it('should match all pods when labelSelector is not specified', () => {
    const c = { ...spread(Zone), labelSelector: {} };
    const r = run({ pods: pods(3, { labels, cpu: '100m', topologySpreadConstraints: [c] }) });
    expect(skew(r, Zone)).toEqual([1, 1, 1]);
  });

  it('should handle interdependent selectors', () => {
    // As upstream: the pods do not carry the labels their own hostname spread selects, so none counts toward the
    // skew and all five may share one node.
    const r = run({ pods: pods(5, { topologySpreadConstraints: [spread(Hostname)] }) });
    expect(scheduledCount(r)).toBe(5);
    expect(r.nodeClaims).toHaveLength(1);
  });

  it('should respect minDomains constraints', () => {
    const np = nodePool({ requirements: [{ key: Zone, operator: 'In', values: ['us-east-1a', 'us-east-1b'] }] });
    const c = spread(Zone, { minDomains: 3 });
    const r = run({ nodePools: [np], pods: pods(3, { labels, cpu: '100m', topologySpreadConstraints: [c] }) });
    // Two domains below minDomains 3: the global minimum is 0, so each zone holds at most maxSkew.
    expect(skew(r, Zone)).toEqual([1, 1]);
    expect(r.unschedulable).toHaveLength(1);
  });

  it('satisfied minDomains constraints (equal) should allow expected pod scheduling', () => {
    const c = spread(Zone, { minDomains: 3 });
    const r = run({ pods: pods(11, { labels, cpu: '100m', topologySpreadConstraints: [c] }) });
    expect(skew(r, Zone)).toEqual([4, 4, 3]);
  });

  it('satisfied minDomains constraints (greater than minimum) should allow expected pod scheduling', () => {
    const c = spread(Zone, { minDomains: 2 });
    const r = run({ pods: pods(11, { labels, cpu: '100m', topologySpreadConstraints: [c] }) });
    expect(skew(r, Zone)).toEqual([4, 4, 3]);
  });
});

describe(`${T} Hostname`, () => {
  it('should balance pods across nodes', () => {
    const r = run({ pods: pods(4, { labels, cpu: '100m', topologySpreadConstraints: [spread(Hostname)] }) });
    expect(skew(r, Hostname)).toEqual([1, 1, 1, 1]);
  });

  it('should balance pods on the same hostname up to maxskew', () => {
    const c = spread(Hostname, { maxSkew: 4 });
    const r = run({ pods: pods(4, { labels, cpu: '100m', topologySpreadConstraints: [c] }) });
    expect(skew(r, Hostname)).toEqual([4]);
  });

  it('balance multiple deployments with hostname topology spread', () => {
    const spreadPod = (app: string) =>
      pod({
        labels: { app },
        topologySpreadConstraints: [spread(Hostname, { labelSelector: { matchLabels: { app } } })],
      });
    const r = run({ pods: [spreadPod('app1'), spreadPod('app1'), spreadPod('app2'), spreadPod('app2')] });
    expect(scheduledCount(r)).toBe(4);
    // The minimum number of nodes: one pod of each app per node.
    expect(r.nodeClaims).toHaveLength(2);
  });
});

describe(`${T} CapacityType`, () => {
  it('should balance pods across capacity types', () => {
    const r = run({ pods: pods(4, { labels, cpu: '100m', topologySpreadConstraints: [spread(CapacityType)] }) });
    expect(skew(r, CapacityType)).toEqual([2, 2]);
  });

  it('should respect NodePool capacity type constraints', () => {
    const np = nodePool({ requirements: [{ key: CapacityType, operator: 'In', values: ['spot', 'on-demand'] }] });
    const r = run({
      nodePools: [np],
      pods: pods(4, { labels, cpu: '100m', topologySpreadConstraints: [spread(CapacityType)] }),
    });
    expect(skew(r, CapacityType)).toEqual([2, 2]);
  });

  it('should violate max-skew when unsat = schedule anyway (capacity type)', () => {
    const np = nodePool({ requirements: [{ key: CapacityType, operator: 'In', values: ['spot'] }] });
    const c = spread(CapacityType, { whenUnsatisfiable: 'ScheduleAnyway' });
    const od = clusterNode({
      name: 'n1',
      pods: [pod({ labels, cpu: '10m', nodeName: 'n1' })],
      markedForDeletion: true,
    });
    const r = run({
      nodePools: [np],
      existingNodes: [od],
      pods: pods(3, { labels, cpu: '100m', topologySpreadConstraints: [c] }),
    });
    expect(scheduledCount(r)).toBe(3);
    expect(r.nodeClaims.every((x) => x.labels[CapacityType] === 'spot')).toBe(true);
  });

  it('should balance pods across capacity-types (node required affinity constrained)', () => {
    // As upstream: an on-demand node in us-east-1a already runs one labelled pod. Five spread pods restricted to spot
    // in us-east-1b all share one spot node: their node affinity keeps the on-demand node's domain out of the count.
    const n1 = clusterNode({ name: 'n1', zone: 'us-east-1a', pods: [pod({ labels, nodeName: 'n1' })] });
    const required = (zone: string, capacityType: string): Pod['spec']['affinity'] => ({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            {
              matchExpressions: [
                { key: Zone, operator: 'In', values: [zone] },
                { key: CapacityType, operator: 'In', values: [capacityType] },
              ],
            },
          ],
        },
      },
    });
    const p = pods(5, {
      labels,
      topologySpreadConstraints: [spread(CapacityType)],
      affinity: required('us-east-1b', 'spot'),
    });
    const r = run({ existingNodes: [n1], pods: p });
    expect(scheduledCount(r)).toBe(5);
    expect(r.nodeClaims).toHaveLength(1);
    expect(clusterSkew(r, [n1], CapacityType)).toEqual([5, 1]);
  });
});

describe(`${T} Combined Hostname and Zonal Topology`, () => {
  it('should spread pods while respecting both constraints (hostname and zonal)', () => {
    // As upstream: four provisioning rounds of 2, 3, 5 and 11 pods, each on the nodes the earlier ones made.
    const cs = [spread(Zone), spread(Hostname, { maxSkew: 3 })];
    const batch = (n: number) => pods(n, { labels, topologySpreadConstraints: cs });
    const expected = [
      [1, 1],
      [2, 2, 1],
      [4, 3, 3],
      [7, 7, 7],
    ];
    const sizes = [2, 3, 5, 11];
    sizes.forEach((_, i) => {
      const { nodes, unschedulable } = provisionRounds(sizes.slice(0, i + 1).map(batch));
      expect(unschedulable).toBe(0);
      expect(nodeSkew(nodes, Zone)).toEqual(expected[i]);
      expect(Math.max(...nodeSkew(nodes, Hostname))).toBeLessThanOrEqual(3);
    });
  });
});

describe(`${T} Combined Zonal and Capacity Type Topology`, () => {
  it('should spread pods while respecting both constraints', () => {
    const cs = [spread(Zone), spread(CapacityType)];
    const r = run({ pods: pods(6, { labels, cpu: '100m', topologySpreadConstraints: cs }) });
    expect(skew(r, Zone)).toEqual([2, 2, 2]);
    expect(skew(r, CapacityType)).toEqual([3, 3]);
  });
});

describe(`${T} Combined Zonal Topology and Node Affinity`, () => {
  it('should limit spread options by nodeSelector', () => {
    // As upstream: five pods pinned to us-east-1a and ten to us-east-1b; each group's selector leaves it one domain.
    const pinned = (n: number, zone: string) =>
      pods(n, { labels, topologySpreadConstraints: [spread(Zone)], nodeSelector: { [Zone]: zone } });
    const r = run({ pods: [...pinned(5, 'us-east-1a'), ...pinned(10, 'us-east-1b')] });
    expect(scheduledCount(r)).toBe(15);
    expect(skew(r, Zone)).toEqual([10, 5]);
  });

  it('should limit spread options by node requirements', () => {
    const p = pods(4, {
      labels,
      cpu: '100m',
      topologySpreadConstraints: [spread(Zone)],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: Zone, operator: 'In', values: ['us-east-1a', 'us-east-1b'] }] },
            ],
          },
        },
      },
    });
    expect(skew(run({ pods: p }), Zone)).toEqual([2, 2]);
  });

  it('should not limit spread options by preferred node affinity', () => {
    const p = pods(6, {
      labels,
      cpu: '100m',
      topologySpreadConstraints: [spread(Zone)],
      affinity: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 1, preference: { matchExpressions: [{ key: Zone, operator: 'In', values: ['us-east-1a'] }] } },
          ],
        },
      },
    });
    const r = run({ pods: p });
    // The preference is relaxed before the skew is broken: the spread holds over all three zones.
    expect(skew(r, Zone)).toEqual([2, 2, 2]);
  });
});

describe(`${T} Combined Capacity Type Topology and Node Affinity`, () => {
  it('should limit spread options by nodeSelector', () => {
    // As upstream: a ScheduleAnyway capacity-type spread, five pods selecting spot and five on-demand.
    const c = spread(CapacityType, { whenUnsatisfiable: 'ScheduleAnyway' });
    const selecting = (ct: string) =>
      pods(5, { labels, topologySpreadConstraints: [c], nodeSelector: { [CapacityType]: ct } });
    const r = run({ pods: [...selecting('spot'), ...selecting('on-demand')] });
    expect(scheduledCount(r)).toBe(10);
    expect(skew(r, CapacityType)).toEqual([5, 5]);
  });
});

describe(`${T} Pod Affinity/Anti-Affinity (zone)`, () => {
  it('should respect self pod affinity (zone)', () => {
    const aff = {
      podAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: Zone, labelSelector: { matchLabels: labels } }],
      },
    };
    const r = run({ pods: pods(3, { labels, cpu: '100m', affinity: aff }) });
    expect(new Set(r.nodeClaims.map(zoneOf)).size).toBe(1);
    expect(scheduledCount(r)).toBe(3);
  });

  it('should respect self pod affinity (zone w/ constraint)', () => {
    const affLabels = { security: 's2' };
    // The pods give their own zonal affinity, and their node affinity limits them to us-east-1c.
    const p = pods(3, {
      labels: affLabels,
      affinity: {
        podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [affinityTerm(Zone, affLabels)] },
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: Zone, operator: 'In', values: ['us-east-1c'] }] }],
          },
        },
      },
    });
    const r = run({ pods: p });
    const claims = p.map((x) => claimOf(r, x));
    expect(claims.every((c) => c !== undefined && zoneOf(c) === 'us-east-1c')).toBe(true);
    expect(new Set(claims.map((c) => c?.name)).size).toBe(1);
  });
});
