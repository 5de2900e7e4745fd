// nodeTaintsPolicy on topology spread: with Honor, domains only NodePools with untolerated taints offer, and existing
// nodes with untolerated taints, are left out of the spread; with Ignore (the default) they count, as in
// kube-scheduler.
import { describe, expect, it } from 'vitest';
import { clusterNode, nodePool, pod } from '../../../testkit/builders';
import { run, scheduledCount, zoneOf } from '../../../testkit/solve';
import type { Pod, Taint, Toleration, TopologySpreadConstraint } from '../../api/kube';

const ZONE = 'topology.kubernetes.io/zone';
const GPU_TAINT: Taint = { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' };
const GPU_TOLERATION: Toleration = { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' };

const general = nodePool({
  name: 'general',
  requirements: [{ key: ZONE, operator: 'In', values: ['us-east-1a', 'us-east-1b'] }],
});
const gpu = nodePool({
  name: 'gpu',
  requirements: [{ key: ZONE, operator: 'In', values: ['us-east-1c'] }],
  taints: [GPU_TAINT],
});

const spread = (policy?: 'Honor' | 'Ignore'): TopologySpreadConstraint => ({
  maxSkew: 1,
  topologyKey: ZONE,
  whenUnsatisfiable: 'DoNotSchedule',
  labelSelector: { matchLabels: { app: 'web' } },
  ...(policy ? { nodeTaintsPolicy: policy } : {}),
});

const web = (n: number, policy?: 'Honor' | 'Ignore', tolerations?: Toleration[]): Pod[] =>
  Array.from({ length: n }, (_, i) =>
    pod({
      name: `web-${i}`,
      cpu: '100m',
      labels: { app: 'web' },
      topologySpreadConstraints: [spread(policy)],
      ...(tolerations ? { tolerations } : {}),
    }),
  );

function zoneCounts(r: ReturnType<typeof run>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of r.nodeClaims) {
    const z = zoneOf(c) as string;
    out[z] = (out[z] ?? 0) + c.pods.length;
  }
  return out;
}

describe('acceptance: nodeTaintsPolicy on topology spread', () => {
  it('Honor: a zone only a NodePool with untolerated taints offers is not a domain', () => {
    const r = run({ pods: web(6, 'Honor'), nodePools: [general, gpu] });
    expect(r.unschedulable).toEqual([]);
    expect(zoneCounts(r)).toEqual({ 'us-east-1a': 3, 'us-east-1b': 3 });
    expect(r.nodeClaims.every((c) => c.nodePool === 'general')).toBe(true);
  });

  for (const policy of ['Ignore', undefined] as const) {
    it(`${policy ?? 'unset'}: the unreachable zone stays a domain, so the skew leaves pods pending`, () => {
      const r = run({ pods: web(6, policy), nodePools: [general, gpu] });
      expect(zoneCounts(r)).toEqual({ 'us-east-1a': 1, 'us-east-1b': 1 });
      expect(r.unschedulable).toHaveLength(4);
      for (const u of r.unschedulable) {
        expect(u.reason).toMatch(/topology spread on topology.kubernetes.io\/zone maxSkew=1 cannot be satisfied/);
        expect(u.reason).toContain('us-east-1c=0');
      }
    });
  }

  it('Honor: pods on an existing node with untolerated taints do not count', () => {
    const tainted = clusterNode({
      name: 'gpu-a',
      zone: 'us-east-1a',
      taints: [GPU_TAINT],
      pods: [pod({ name: 'old-1', labels: { app: 'web' } }), pod({ name: 'old-2', labels: { app: 'web' } })],
    });
    const honor = run({ pods: web(4, 'Honor'), nodePools: [general], existingNodes: [tainted] });
    expect(honor.unschedulable).toEqual([]);
    expect(zoneCounts(honor)).toEqual({ 'us-east-1a': 2, 'us-east-1b': 2 });
    // The same node counts under Ignore: zone a already holds 2, so the first pods go to b.
    const ignore = run({ pods: web(4, 'Ignore'), nodePools: [general], existingNodes: [tainted] });
    expect(zoneCounts(ignore)).toEqual({ 'us-east-1a': 1, 'us-east-1b': 3 });
  });

  it('Honor: a zone only an existing node with untolerated taints is in is not a domain', () => {
    const tainted = clusterNode({ name: 'gpu-c', zone: 'us-east-1c', taints: [GPU_TAINT] });
    const honor = run({ pods: web(4, 'Honor'), nodePools: [general], existingNodes: [tainted] });
    expect(honor.unschedulable).toEqual([]);
    expect(zoneCounts(honor)).toEqual({ 'us-east-1a': 2, 'us-east-1b': 2 });
    const ignore = run({ pods: web(4, 'Ignore'), nodePools: [general], existingNodes: [tainted] });
    expect(scheduledCount(ignore)).toBe(2);
    expect(ignore.unschedulable[0]?.reason).toContain('us-east-1c=0');
  });

  it('Honor: pods on new claims with untolerated taints do not count either', () => {
    // Tolerating pods with the same label land first (larger) on gpu claims in zone a; the spread pods do not
    // tolerate the gpu taint, so those do not count for them and they split evenly over a and b.
    const gpuAB = nodePool({
      name: 'gpu',
      weight: 10,
      requirements: [{ key: ZONE, operator: 'In', values: ['us-east-1a', 'us-east-1b'] }],
      taints: [GPU_TAINT],
    });
    const jobs = Array.from({ length: 2 }, (_, i) =>
      pod({
        name: `job-${i}`,
        cpu: '2',
        labels: { app: 'web' },
        nodeSelector: { [ZONE]: 'us-east-1a' },
        tolerations: [GPU_TOLERATION],
      }),
    );
    const webZones = (r: ReturnType<typeof run>): Record<string, number> => {
      const out: Record<string, number> = {};
      for (const c of r.nodeClaims) {
        const n = c.pods.filter((p) => p.metadata.name.startsWith('web-')).length;
        if (n > 0) out[zoneOf(c) as string] = (out[zoneOf(c) as string] ?? 0) + n;
      }
      return out;
    };
    const honor = run({ pods: [...jobs, ...web(4, 'Honor')], nodePools: [general, gpuAB] });
    expect(honor.unschedulable).toEqual([]);
    const jobClaims = honor.nodeClaims.filter((c) => c.pods.some((p) => p.metadata.name.startsWith('job-')));
    expect(jobClaims.map((c) => [c.nodePool, zoneOf(c)])).toContainEqual(['gpu', 'us-east-1a']);
    expect(jobClaims.every((c) => c.nodePool === 'gpu')).toBe(true);
    expect(webZones(honor)).toEqual({ 'us-east-1a': 2, 'us-east-1b': 2 });
    const ignore = run({ pods: [...jobs, ...web(4, 'Ignore')], nodePools: [general, gpuAB] });
    expect(webZones(ignore)).toEqual({ 'us-east-1a': 1, 'us-east-1b': 3 });
  });

  it('Honor: a pod that tolerates the taint has the tainted NodePool zone as a domain again', () => {
    const r = run({ pods: web(6, 'Honor', [GPU_TOLERATION]), nodePools: [general, gpu] });
    expect(r.unschedulable).toEqual([]);
    expect(zoneCounts(r)).toEqual({ 'us-east-1a': 2, 'us-east-1b': 2, 'us-east-1c': 2 });
    expect(r.nodeClaims.filter((c) => zoneOf(c) === 'us-east-1c').every((c) => c.nodePool === 'gpu')).toBe(true);
  });
});
