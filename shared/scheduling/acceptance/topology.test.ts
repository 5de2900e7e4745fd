import { describe, expect, it } from 'vitest';
import { clusterNode, nodePool, pod } from '../../../testkit/builders';
import { claimOf, run, scheduledCount, zoneOf } from '../../../testkit/solve';
import type { Pod, TopologySpreadConstraint } from '../../api/kube';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';
const CT = 'karpenter.sh/capacity-type';

const spread = (key: string, extra: Partial<TopologySpreadConstraint> = {}): TopologySpreadConstraint => ({
  maxSkew: 1,
  topologyKey: key,
  whenUnsatisfiable: 'DoNotSchedule',
  labelSelector: { matchLabels: { app: 'web' } },
  ...extra,
});

const web = (n: number, extra: Partial<Pod['spec']> = {}, labels: Record<string, string> = { app: 'web' }): Pod[] =>
  Array.from({ length: n }, (_, i) => pod({ name: `web-${i}`, cpu: '100m', labels, ...extra }));

function countBy<T>(xs: T[]): Map<T, number> {
  const m = new Map<T, number>();
  for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

function zoneCounts(r: ReturnType<typeof run>): number[] {
  const zones = r.nodeClaims.flatMap((c) => c.pods.map(() => zoneOf(c) as string));
  return [...countBy(zones).values()].sort();
}

describe('acceptance: topology spread', () => {
  it('spreads across zones with maxSkew 1', () => {
    const r = run({ pods: web(6, { topologySpreadConstraints: [spread(ZONE)] }) });
    expect(zoneCounts(r)).toEqual([2, 2, 2]);
  });

  it('balances against pods already running in a zone', () => {
    const existing = clusterNode({
      name: 'a1',
      zone: 'us-east-1a',
      pods: [pod({ name: 'old-1', labels: { app: 'web' } }), pod({ name: 'old-2', labels: { app: 'web' } })],
    });
    const tainted = { ...existing, taints: [{ key: 'full', effect: 'NoSchedule' as const }] };
    const r = run({ pods: web(4, { topologySpreadConstraints: [spread(ZONE)] }), existingNodes: [tainted] });
    const zones = r.nodeClaims.flatMap((c) => c.pods.map(() => zoneOf(c)));
    expect(zones.filter((z) => z === 'us-east-1a')).toHaveLength(0);
    expect(countBy(zones).get('us-east-1b')).toBe(2);
  });

  it('spreads across hostnames: one pod per node at maxSkew 1', () => {
    const r = run({ pods: web(4, { topologySpreadConstraints: [spread(HOST)] }) });
    expect(r.nodeClaims).toHaveLength(4);
  });

  it('allows maxSkew pods per node on hostname spread', () => {
    const r = run({ pods: web(6, { topologySpreadConstraints: [spread(HOST, { maxSkew: 3 })] }) });
    expect(r.nodeClaims).toHaveLength(2);
  });

  it('spreads across capacity types', () => {
    const r = run({ pods: web(4, { topologySpreadConstraints: [spread(CT)] }) });
    const cts = r.nodeClaims.flatMap((c) => c.pods.map(() => c.labels[CT]));
    expect(countBy(cts)).toEqual(
      new Map([
        ['on-demand', 2],
        ['spot', 2],
      ]),
    );
  });

  it('leaves pods pending when minDomains exceeds the zones available', () => {
    const r = run({ pods: web(6, { topologySpreadConstraints: [spread(ZONE, { minDomains: 5 })] }) });
    // Fewer than minDomains domains: the global minimum counts as zero, so each zone takes at most maxSkew.
    expect(scheduledCount(r)).toBe(3);
    expect(r.unschedulable).toHaveLength(3);
    expect(r.unschedulable[0]?.reason).toMatch(
      /topology spread on topology.kubernetes.io\/zone maxSkew=1 minDomains=5/,
    );
  });

  it('spreads within the zones a NodePool allows', () => {
    const pool = nodePool({ requirements: [{ key: ZONE, operator: 'In', values: ['us-east-1a', 'us-east-1b'] }] });
    const r = run({ pods: web(4, { topologySpreadConstraints: [spread(ZONE)] }), nodePools: [pool] });
    expect(zoneCounts(r)).toEqual([2, 2]);
  });

  it('spreads each revision separately with matchLabelKeys', () => {
    const v1 = web(
      3,
      { topologySpreadConstraints: [spread(ZONE, { matchLabelKeys: ['rev'] })] },
      { app: 'web', rev: '1' },
    );
    const v2 = web(
      3,
      { topologySpreadConstraints: [spread(ZONE, { matchLabelKeys: ['rev'] })] },
      { app: 'web', rev: '2' },
    ).map((p, i) => ({ ...p, metadata: { ...p.metadata, name: `v2-${i}` } }));
    const r = run({ pods: [...v1, ...v2] });
    for (const group of [v1, v2]) {
      const zones = group.map((p) => zoneOf(claimOf(r, p)));
      expect(new Set(zones).size).toBe(3);
    }
  });

  it('spreads on a custom label the NodePool declares', () => {
    const pool = nodePool({ requirements: [{ key: 'rack', operator: 'In', values: ['r1', 'r2'] }] });
    const r = run({ pods: web(4, { topologySpreadConstraints: [spread('rack')] }), nodePools: [pool] });
    const racks = r.nodeClaims.flatMap((c) => c.pods.map(() => c.labels.rack));
    expect(countBy(racks)).toEqual(
      new Map([
        ['r1', 2],
        ['r2', 2],
      ]),
    );
  });
});

describe('acceptance: pod affinity and anti-affinity', () => {
  const required = (kind: 'podAffinity' | 'podAntiAffinity', key: string, labels = { app: 'web' }, extra = {}) => ({
    [kind]: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        { labelSelector: { matchLabels: labels }, topologyKey: key, ...extra },
      ],
    },
  });

  it('co-locates pods with zone self-affinity', () => {
    const r = run({ pods: web(6, { affinity: required('podAffinity', ZONE) }) });
    expect(new Set(r.nodeClaims.map(zoneOf)).size).toBe(1);
    expect(scheduledCount(r)).toBe(6);
  });

  it('follows pods already running in a zone', () => {
    const db = clusterNode({
      name: 'db-node',
      zone: 'us-east-1c',
      pods: [pod({ name: 'db-0', labels: { app: 'db' } })],
    });
    const full = { ...db, allocatable: { cpu: 0, memory: 0, pods: 0 } };
    const r = run({ pods: web(2, { affinity: required('podAffinity', ZONE, { app: 'db' }) }), existingNodes: [full] });
    expect(r.nodeClaims.every((c) => zoneOf(c) === 'us-east-1c')).toBe(true);
  });

  it('leaves pods pending when their affinity target does not exist', () => {
    const r = run({ pods: web(1, { affinity: required('podAffinity', ZONE, { app: 'missing' }) }) });
    expect(r.unschedulable).toHaveLength(1);
    expect(r.unschedulable[0]?.reason).toMatch(/pod affinity on topology.kubernetes.io\/zone/);
  });

  it('schedules affinity pods after the pods they follow, in one batch', () => {
    const followers = web(2, { affinity: required('podAffinity', HOST, { app: 'cache' }) }, { app: 'web' });
    const leader = pod({ name: 'cache', cpu: '100m', labels: { app: 'cache' } });
    const r = run({ pods: [...followers, leader] });
    expect(scheduledCount(r)).toBe(3);
    expect(claimOf(r, 'web-0')?.name).toBe(claimOf(r, 'cache')?.name);
  });

  it('keeps hostname anti-affinity pods on separate nodes', () => {
    const r = run({ pods: web(5, { affinity: required('podAntiAffinity', HOST) }) });
    expect(r.nodeClaims).toHaveLength(5);
  });

  it('places zone anti-affinity pods one per zone and leaves the extras pending', () => {
    const r = run({ pods: web(5, { affinity: required('podAntiAffinity', ZONE) }) });
    expect(scheduledCount(r)).toBe(3);
    expect(new Set(r.nodeClaims.map(zoneOf)).size).toBe(3);
    expect(r.unschedulable).toHaveLength(2);
    expect(r.unschedulable[0]?.reason).toMatch(/pod anti-affinity on topology.kubernetes.io\/zone/);
  });

  it('keeps new pods away from existing pods whose anti-affinity selects them (inverse rule)', () => {
    const guard = pod({
      name: 'guard',
      labels: { app: 'guard' },
      affinity: required('podAntiAffinity', ZONE, { app: 'web' }),
    });
    const nodes = ['us-east-1a', 'us-east-1b'].map((z, i) =>
      clusterNode({
        name: `n${i}`,
        zone: z,
        pods: i === 0 ? [guard] : [],
        allocatable: { cpu: 0, memory: 0, pods: 0 },
      }),
    );
    const r = run({ pods: web(3), existingNodes: nodes });
    expect(r.nodeClaims.every((c) => zoneOf(c) !== 'us-east-1a')).toBe(true);
    expect(scheduledCount(r)).toBe(3);
  });

  it('counts only the namespaces an affinity term names', () => {
    const other = clusterNode({
      name: 'other',
      zone: 'us-east-1b',
      pods: [pod({ name: 'db', namespace: 'data', labels: { app: 'db' } })],
      allocatable: { cpu: 0, memory: 0, pods: 0 },
    });
    const sameNs = run({
      pods: web(1, { affinity: required('podAffinity', ZONE, { app: 'db' }) }),
      existingNodes: [other],
    });
    expect(sameNs.unschedulable).toHaveLength(1);
    const named = run({
      pods: web(1, { affinity: required('podAffinity', ZONE, { app: 'db' }, { namespaces: ['data'] }) }),
      existingNodes: [other],
    });
    expect(zoneOf(named.nodeClaims[0])).toBe('us-east-1b');
  });

  it('selects namespaces by namespaceSelector', () => {
    const other = clusterNode({
      name: 'other',
      zone: 'us-east-1c',
      pods: [pod({ name: 'db', namespace: 'data', labels: { app: 'db' } })],
      allocatable: { cpu: 0, memory: 0, pods: 0 },
    });
    const r = run({
      pods: web(1, {
        affinity: required(
          'podAffinity',
          ZONE,
          { app: 'db' },
          { namespaceSelector: { matchLabels: { tier: 'data' } } },
        ),
      }),
      existingNodes: [other],
      namespaces: [
        { kind: 'Namespace', metadata: { name: 'data', labels: { tier: 'data' } } },
        { kind: 'Namespace', metadata: { name: 'default' } },
      ],
    });
    expect(zoneOf(r.nodeClaims[0])).toBe('us-east-1c');
  });
});
