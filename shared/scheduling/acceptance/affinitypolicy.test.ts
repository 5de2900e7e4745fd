// nodeAffinityPolicy on topology spread: with Honor (the default) only pods on nodes and claims that the pod's
// nodeSelector and required node affinity admit count toward the skew, as in kube-scheduler; with Ignore every
// selected pod counts.
import { describe, expect, it } from 'vitest';
import { clusterNode, nodePool, pod } from '../../../testkit/builders';
import { run, zoneOf } from '../../../testkit/solve';
import type { Pod, PodSpec, TopologySpreadConstraint } from '../../api/kube';
import type { ClusterNode } from '../types';

type Policy = 'Honor' | 'Ignore' | undefined;
const ZONE = 'topology.kubernetes.io/zone';
const A = 'us-east-1a';
const B = 'us-east-1b';

const teamPool = (team: string) =>
  nodePool({
    name: `team-${team}`,
    labels: { team },
    requirements: [{ key: ZONE, operator: 'In', values: [A, B] }],
  });

const spread = (policy: Policy): TopologySpreadConstraint => ({
  maxSkew: 1,
  topologyKey: ZONE,
  whenUnsatisfiable: 'DoNotSchedule',
  labelSelector: { matchLabels: { app: 'web' } },
  ...(policy ? { nodeAffinityPolicy: policy } : {}),
});

const requireTeam = (team: string): Pick<PodSpec, 'affinity'> => ({
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'team', operator: 'In', values: [team] }] }],
      },
    },
  },
});

const web = (prefix: string, n: number, policy: Policy, spec: Partial<PodSpec> = {}): Pod[] =>
  Array.from({ length: n }, (_, i) =>
    pod({
      name: `${prefix}-${i}`,
      cpu: '100m',
      labels: { app: 'web' },
      topologySpreadConstraints: [spread(policy)],
      ...spec,
    }),
  );

/** An existing node of a team in a zone, running `n` pods the spread selects. */
function teamNode(team: string, zone: string, n: number): ClusterNode {
  const node = clusterNode({
    name: `${team}-${zone}`,
    zone,
    pods: Array.from({ length: n }, (_, i) => pod({ name: `old-${team}-${i}`, labels: { app: 'web' } })),
  });
  node.labels.team = team;
  return node;
}

/** Where the pods whose names start with `prefix` landed, per zone (new claims and existing nodes). */
function zonesOf(r: ReturnType<typeof run>, prefix: string, nodes: ClusterNode[] = []): Record<string, number> {
  const out: Record<string, number> = {};
  const add = (zone: string | undefined, pods: Pod[]) => {
    const n = pods.filter((p) => p.metadata.name.startsWith(`${prefix}-`)).length;
    if (n > 0) out[zone as string] = (out[zone as string] ?? 0) + n;
  };
  for (const c of r.nodeClaims) add(zoneOf(c), c.pods);
  for (const e of r.existingNodes) add(nodes.find((n) => n.name === e.name)?.labels[ZONE], e.pods);
  return out;
}

describe('acceptance: nodeAffinityPolicy on topology spread', () => {
  for (const policy of ['Honor', undefined] as const) {
    it(`${policy ?? 'unset'}: pods on an existing node the pod's node affinity excludes do not count`, () => {
      // Zone a holds 3 matching pods, but on a team=x node; the pods require team=y, so kube-scheduler sees 0 and 0.
      const r = run({
        pods: web('web', 4, policy, requireTeam('y')),
        nodePools: [teamPool('y')],
        existingNodes: [teamNode('x', A, 3)],
      });
      expect(r.unschedulable).toEqual([]);
      expect(zonesOf(r, 'web')).toEqual({ [A]: 2, [B]: 2 });
    });
  }

  it('Ignore: pods on nodes the node affinity excludes still count', () => {
    const r = run({
      pods: web('web', 4, 'Ignore', requireTeam('y')),
      nodePools: [teamPool('y')],
      existingNodes: [teamNode('x', A, 3)],
    });
    expect(r.unschedulable).toEqual([]);
    // Zone a counts 3, so every pod goes to b (each joins the claim there while the skew allows).
    expect(zonesOf(r, 'web')).toEqual({ [B]: 4 });
  });

  it('a pod without node affinity counts every selected pod, as before', () => {
    for (const policy of ['Honor', 'Ignore', undefined] as const) {
      const nodes = [teamNode('x', A, 3)];
      const r = run({ pods: web('web', 4, policy), nodePools: [teamPool('y')], existingNodes: nodes });
      expect(r.unschedulable).toEqual([]);
      expect(zonesOf(r, 'web', nodes)).toEqual({ [A]: 1, [B]: 3 });
    }
  });

  it('pods differing only in node affinity keep separate counts', () => {
    // Team x already runs 3 in zone a, team y 3 in zone b; each deployment balances against its own team only.
    const nodes = [teamNode('x', A, 3), teamNode('y', B, 3)];
    const pods = [
      ...web('wx', 4, undefined, { nodeSelector: { team: 'x' } }),
      ...web('wy', 4, undefined, { nodeSelector: { team: 'y' } }),
    ];
    const r = run({ pods, nodePools: [teamPool('x'), teamPool('y')], existingNodes: nodes });
    expect(r.unschedulable).toEqual([]);
    expect(zonesOf(r, 'wx', nodes)).toEqual({ [A]: 1, [B]: 3 });
    expect(zonesOf(r, 'wy', nodes)).toEqual({ [A]: 3, [B]: 1 });
  });

  for (const policy of ['Honor', 'Ignore', undefined] as const) {
    const counted = policy === 'Ignore' ? 'all count' : 'count only where the node affinity admits them';
    it(`${policy ?? 'unset'}: pods on claims of this solve ${counted}`, () => {
      // Larger pods with the same app label go first onto team x claims in zone a and a team y claim in zone b.
      const job = (team: string, zone: string, i: number) =>
        pod({ name: `job-${team}-${i}`, cpu: '2', labels: { app: 'web' }, nodeSelector: { team, [ZONE]: zone } });
      const jobs = [job('x', A, 0), job('x', A, 1), job('y', B, 0), job('y', B, 1)];
      const r = run({
        pods: [...jobs, ...web('web', 4, policy, { nodeSelector: { team: 'y' } })],
        nodePools: [teamPool('x'), teamPool('y')],
      });
      expect(r.unschedulable).toEqual([]);
      // Honor counts a=0 (team x claims) and b=2 (the team y claim); Ignore counts a=2 and b=2.
      expect(zonesOf(r, 'web')).toEqual(policy === 'Ignore' ? { [A]: 2, [B]: 2 } : { [A]: 3, [B]: 1 });
    });
  }
});
