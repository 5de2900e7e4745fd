// Karpenter's consolidation scenarios on the pure sweep: delete vs replace, merging, spot-to-spot, blockers and
// budgets, plus Karpless's anti-churn rules.
import { describe, expect, it } from 'vitest';
import { boundPod, disruptionInput, HOUR, MIN, node, pdb, pool, priceOf, T0 } from '../../testkit/disruption';
import { planDisruption } from './plan';
import type { DisruptionCommand } from './types';

const only = (commands: DisruptionCommand[]): DisruptionCommand => {
  expect(commands).toHaveLength(1);
  return commands[0] as DisruptionCommand;
};
const names = (c: DisruptionCommand): string[] => c.candidates.map((x) => x.name).sort();

describe('consolidation: delete versus replace', () => {
  it('deletes a node whose pods fit on the others', () => {
    const p = pool();
    const big = node('big', { pool: p, type: 'm5.2xlarge', cpus: ['2', '2'] });
    const small = node('small', { pool: p, type: 'm5.xlarge', cpus: ['1'] });
    const cmd = only(planDisruption(disruptionInput([big, small], { nodePools: [p] })).commands);
    expect(cmd.reason).toBe('Underutilized');
    expect(names(cmd)).toEqual(['small']);
    expect(cmd.replacements).toEqual([]);
    expect(Object.keys(cmd.moves)).toEqual(['big']);
    expect(cmd.savingPerHour).toBeCloseTo(0.192);
    expect(cmd.record.detail.method).toBe('delete');
  });

  it('replaces a node with a strictly cheaper one when its pods fit nowhere else', () => {
    const p = pool();
    const oversized = node('oversized', { pool: p, type: 'm5.4xlarge', cpus: ['1500m', '1500m'] });
    const cmd = only(planDisruption(disruptionInput([oversized], { nodePools: [p] })).commands);
    expect(names(cmd)).toEqual(['oversized']);
    expect(cmd.replacements).toHaveLength(1);
    const repl = cmd.replacements[0];
    expect(repl?.cheapest.price).toBeLessThan(0.768 * 0.95);
    expect(cmd.savingPerHour).toBeCloseTo(0.768 - (repl?.cheapest.price ?? 0));
    expect(cmd.record.nodeClaims).toEqual(['claim-oversized', repl?.name]);
  });

  it('keeps a right-sized node and records why', () => {
    const p = pool();
    const a = node('a', { pool: p, type: 'm6g.xlarge', cpus: ['3500m'] });
    const plan = planDisruption(disruptionInput([a], { nodePools: [p] }));
    expect(plan.commands).toEqual([]);
    expect(plan.rejected[0]?.blockers[0]).toMatch(/no cheaper node holds its pods/);
    expect(plan.records[0]?.kind).toBe('Keep');
    // One pod cannot be split: only the batch solve ran.
    expect(plan.stats.solverCalls).toBe(1);
  });

  it('spends a sweep’s split checks where a split saves most, not on the first candidate', () => {
    const p = pool();
    // Pinned to their zones, so the batch cannot merge the two nodes' pods onto one new node.
    const pinned = (nodeName: string, zone: string) => {
      const pod = boundPod(nodeName, '900m');
      pod.spec.nodeSelector = { 'topology.kubernetes.io/zone': zone };
      return pod;
    };
    const nodes = () => [
      // Fewer pods, so first in disruption order, and less to gain from a split.
      node('small', {
        pool: p,
        type: 'm5.2xlarge',
        pods: Array.from({ length: 5 }, () => pinned('small', 'us-east-1a')),
      }),
      node('big', {
        pool: p,
        type: 'm5.4xlarge',
        zone: 'us-east-1b',
        pods: Array.from({ length: 10 }, () => pinned('big', 'us-east-1b')),
      }),
    ];
    const methods = (maxSplitChecks: number) =>
      planDisruption(disruptionInput(nodes(), { nodePools: [p], options: { maxSplitChecks } }))
        .commands.map((c) => [names(c)[0], c.record.detail.method])
        .sort();
    // One check: it goes to the big node; the small one, first in order, gets its one cheaper replacement.
    expect(methods(1)).toEqual([
      ['big', 'split'],
      ['small', 'replace'],
    ]);
    // With a check for each, both split.
    expect(methods(2)).toEqual([
      ['big', 'split'],
      ['small', 'split'],
    ]);
  });

  it('says in the Keep record why splitting a node would not pay', () => {
    const p = pool();
    const a = node('a', { pool: p, type: 'm6g.xlarge', cpus: ['1750m', '1750m'] });
    const plan = planDisruption(disruptionInput([a], { nodePools: [p] }));
    expect(plan.commands).toEqual([]);
    expect(plan.rejected[0]?.blockers[0]).toMatch(
      /^no cheaper node holds its pods .*; a split over 2 new nodes \(\$0\.154\/h\) saves less than 5% of \$0\.154\/h$/,
    );
    expect(plan.stats.solverCalls).toBe(2);
  });

  it('splits a node over several smaller new nodes when that saves enough over any one replacement', () => {
    const p = pool();
    // 10 × 900m: one new node must have 16 vCPU; an 8-vCPU node for 8 pods and a 2-vCPU one for 2 cost far less.
    const big = () => node('big', { pool: p, type: 'm5.4xlarge', cpus: Array.from({ length: 10 }, () => '900m') });
    const one = only(
      planDisruption(disruptionInput([big()], { nodePools: [p], options: { maxSplitChecks: 0 } })).commands,
    );
    expect(one.replacements).toHaveLength(1);
    const onePrice = one.replacements[0]?.cheapest.price ?? 0;

    const plan = planDisruption(disruptionInput([big()], { nodePools: [p] }));
    const cmd = only(plan.commands);
    expect(names(cmd)).toEqual(['big']);
    expect(cmd.record.detail.method).toBe('split');
    expect(cmd.replacements.length).toBeGreaterThan(1);
    expect(cmd.replacements.flatMap((r) => r.pods)).toHaveLength(10);
    const splitPrice = cmd.replacements.reduce((sum, r) => sum + r.cheapest.price, 0);
    expect(splitPrice).toBeLessThanOrEqual(onePrice * 0.95);
    expect(cmd.savingPerHour).toBeCloseTo(0.768 - splitPrice);
    // The batch solve of bundles, then one solve of the node's own pods onto new capacity.
    expect(plan.stats.solverCalls).toBe(2);
  });

  it('merges three underutilized nodes into one cheaper node', () => {
    const p = pool();
    // 2 cpu each: no node can take another's pod, so only a merge helps.
    const nodes = ['a', 'b', 'c'].map((n) => node(n, { pool: p, type: 'm5.xlarge', cpus: ['2'] }));
    const cmd = only(planDisruption(disruptionInput(nodes, { nodePools: [p] })).commands);
    expect(names(cmd)).toEqual(['a', 'b', 'c']);
    expect(cmd.replacements).toHaveLength(1);
    expect(cmd.record.detail.method).toBe('merge');
    expect(cmd.replacements[0]?.pods).toHaveLength(3);
    expect(cmd.savingPerHour).toBeCloseTo(0.576 - (cmd.replacements[0]?.cheapest.price ?? 0));
    expect(cmd.savingPerHour).toBeGreaterThan(0.192);
  });

  it('merges beyond one replacement: six half-empty nodes into fewer, cheaper nodes', () => {
    const p = pool();
    const nodes = Array.from({ length: 6 }, (_, i) => node(`n${i}`, { pool: p, type: 'm5.2xlarge', cpus: ['2', '1'] }));
    const plan = planDisruption(disruptionInput(nodes, { nodePools: [p] }));
    const removed = plan.commands.flatMap((c) => c.candidates).length;
    const launched = plan.commands.flatMap((c) => c.replacements).length;
    expect(removed - launched).toBeGreaterThanOrEqual(2);
    const saving = plan.commands.reduce((s, c) => s + c.savingPerHour, 0);
    expect(saving).toBeGreaterThan(0.384 * 2);
  });
});

describe('consolidation: packed merges (beyond Karpenter)', () => {
  // Two cpu-bound c5.xlarge nodes (3 cpu each) head the order, two memory-bound r5.large nodes (12 GiB each) follow;
  // each node is the cheapest type for its pod, and no pod fits on another node. A budget of two lets every merge
  // window hold two neighbours in order: the c5 pair needs a c5.2xlarge at their price, the r5 pair an r5.xlarge at
  // theirs. One c5 node and one r5 node fit an m5.xlarge (3.5 cpu, 13 GiB) for $0.192/h instead of $0.296/h.
  const cluster = () => {
    const p = pool({
      budgets: [{ nodes: '2' }],
      requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['c5', 'm5', 'r5'] }],
    });
    const cpuBound = (n: string) => node(n, { pool: p, type: 'c5.xlarge', pods: [boundPod(n, '3', '1Gi')] });
    const memoryBound = (n: string) => node(n, { pool: p, type: 'r5.large', pods: [boundPod(n, '500m', '12Gi')] });
    return disruptionInput([cpuBound('a'), cpuBound('b'), memoryBound('c'), memoryBound('d')], { nodePools: [p] });
  };

  it('merges candidates far apart in the order when their pods fit one cheaper node, in a sweep with nothing else to do', () => {
    const plan = planDisruption(cluster());
    const cmd = only(plan.commands);
    expect(cmd.record.detail.method).toBe('merge');
    expect(names(cmd)).toEqual(['a', 'c']);
    expect(cmd.replacements.map((r) => r.cheapest.instanceType)).toEqual(['m5.xlarge']);
    expect(cmd.savingPerHour).toBeCloseTo(0.17 + 0.126 - 0.192);
    // The candidates left say why the order-bound searches kept them.
    expect(plan.rejected.map((r) => r.name).sort()).toEqual(['b', 'd']);
  });

  it('waits while anything else in the cluster moves', () => {
    const input = cluster();
    // A node that just launched: the cluster is still settling, so the packing waits for a quiet sweep.
    input.nodes.push(node('new', { pool: input.nodePools[0], type: 'c5.large', state: 'Launched' }));
    expect(planDisruption(input).commands).toEqual([]);
  });
});

describe('consolidation: spot-to-spot', () => {
  const spot = pool({ capacityTypes: ['spot'] });
  const gateOn = { options: { spotToSpotConsolidation: true } };

  it('refuses a spot-to-spot replacement with fewer than 15 cheaper types', () => {
    const a = node('a', { pool: spot, type: 'm5.xlarge', capacityType: 'spot', cpus: ['1500m'] });
    const plan = planDisruption(disruptionInput([a], { nodePools: [spot], ...gateOn }));
    expect(plan.commands).toEqual([]);
    expect(plan.rejected[0]?.blockers[0]).toMatch(
      /spot-to-spot replacement needs at least 15 cheaper instance types, found \d/,
    );
  });

  // A type counts as cheaper only if its dearest spot offering is (Karpenter's WorstLaunchPrice): in the fixture
  // catalog spot costs 0.32, 0.35 and 0.38 of on-demand in us-east-1a, -1b and -1c.
  it('counts a type as cheaper only where every zone it may launch in is cheaper', () => {
    const a = node('a', { pool: spot, type: 'm5.4xlarge', capacityType: 'spot', zone: 'us-east-1a', cpus: ['1500m'] });
    const plan = planDisruption(disruptionInput([a], { nodePools: [spot], ...gateOn }));
    expect(plan.commands).toEqual([]);
    expect(plan.rejected[0]?.blockers[0]).toMatch(/needs at least 15 cheaper instance types, found (\d|1[0-4])$/);
  });

  it('allows it with 15 or more cheaper types, sending the 15 cheapest spot options, pinned to spot', () => {
    const zone = 'us-east-1c';
    const a = node('a', { pool: spot, type: 'm5.4xlarge', capacityType: 'spot', zone, cpus: ['1500m'] });
    const cmd = only(planDisruption(disruptionInput([a], { nodePools: [spot], ...gateOn })).commands);
    const repl = cmd.replacements[0];
    expect(repl?.cheapest.capacityType).toBe('spot');
    expect(repl?.instanceTypeOptions).toHaveLength(15);
    for (const t of repl?.instanceTypeOptions ?? []) {
      const worst = Math.max(...t.offerings.filter((o) => o.capacityType === 'spot').map((o) => o.price));
      expect(worst).toBeLessThan(priceOf('m5.4xlarge', 'spot', zone));
    }
    expect(repl?.requirements).toContainEqual({ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] });
  });
});

describe('consolidation: blockers and budgets', () => {
  it('does not touch a node with a do-not-disrupt pod', () => {
    const p = pool();
    const dnd = boundPod('small', '1', '512Mi', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
    const big = node('big', { pool: p, type: 'm5.2xlarge', cpus: ['2', '2'] });
    const small = node('small', { pool: p, pods: [dnd] });
    const plan = planDisruption(disruptionInput([big, small], { nodePools: [p] }));
    expect(plan.commands.flatMap((c) => c.candidates.map((x) => x.name))).not.toContain('small');
    expect(plan.rejected.find((r) => r.name === 'small')?.blockers[0]).toMatch(/do-not-disrupt/);
  });

  // Replaces "does not consolidate what a PDB protects, counting the PDB across the whole command", which asserted
  // the stricter rule (a 1-disruption PDB let only one of two nodes go). Karpenter lets both go: the eviction API
  // paces the drains.
  it('consolidates nodes of a PDB that allows a disruption, leaving the pace to the eviction API', () => {
    const p = pool();
    // 2 cpu each: only the host has room, so both move there.
    const db = (n: string) => boundPod(n, '2', '512Mi', { labels: { app: 'db' } });
    const host = node('host', { pool: p, type: 'm5.4xlarge', annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
    const a = node('a', { pool: p, pods: [db('a')] });
    const b = node('b', { pool: p, pods: [db('b')] });
    const plan = planDisruption(disruptionInput([host, a, b], { nodePools: [p], pdbs: [pdb('db', { app: 'db' }, 1)] }));
    expect(plan.commands.flatMap((c) => c.candidates.map((x) => x.name)).sort()).toEqual(['a', 'b']);
    expect(plan.rejected.map((r) => r.name)).toEqual(['host']);
  });

  describe('a node holding more replicas than the PDB allows at once', () => {
    const p = pool();
    const replicas = () =>
      ['web-0', 'web-1', 'web-2'].map((name) => boundPod('crowded', '500m', '512Mi', { labels: { app: 'web' }, name }));
    const nodes = () => [
      // The host stays (do-not-disrupt) so the only question is whether the crowded node may go.
      node('big', { pool: p, type: 'm5.4xlarge', cpus: ['2'], annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }),
      node('crowded', { pool: p, pods: replicas() }),
    ];

    it('is consolidated when the PDB allows one disruption (maxUnavailable 1, 3 replicas on the node)', () => {
      const plan = planDisruption(disruptionInput(nodes(), { nodePools: [p], pdbs: [pdb('web', { app: 'web' }, 1)] }));
      const cmd = only(plan.commands);
      expect(names(cmd)).toEqual(['crowded']);
      expect(cmd.moves.big?.sort()).toEqual(['default/web-0', 'default/web-1', 'default/web-2']);
    });

    it('is blocked, naming the PDB, when the PDB allows none right now', () => {
      const blocking = { ...pdb('web', { app: 'web' }, 1), status: { disruptionsAllowed: 0 } };
      const plan = planDisruption(disruptionInput(nodes(), { nodePools: [p], pdbs: [blocking] }));
      expect(plan.commands).toHaveLength(0);
      expect(plan.rejected.find((r) => r.name === 'crowded')?.blockers).toEqual([
        'PodDisruptionBudget default/web allows 0 disruptions now (pod default/web-0)',
      ]);
    });

    it('is blocked when a pod is selected by two PDBs, which the eviction API refuses', () => {
      const pdbs = [pdb('web', { app: 'web' }, 1), pdb('web-too', { app: 'web' }, '50%')];
      const plan = planDisruption(disruptionInput(nodes(), { nodePools: [p], pdbs }));
      expect(plan.commands).toHaveLength(0);
      expect(plan.rejected.find((r) => r.name === 'crowded')?.blockers[0]).toBe(
        'pod default/web-0 is selected by 2 PodDisruptionBudgets (default/web, default/web-too); the eviction API refuses it',
      );
    });
  });

  it('waits for consolidateAfter and leaves WhenEmpty pools alone', () => {
    const waiting = pool({ name: 'w', consolidateAfter: '30m' });
    const whenEmpty = pool({ name: 'e', policy: 'WhenEmpty' });
    const host = (pl: typeof waiting, n: string) => node(n, { pool: pl, type: 'm5.2xlarge', cpus: ['1'] });
    const plan = planDisruption(
      disruptionInput(
        [
          host(waiting, 'w1'),
          node('w2', { pool: waiting, cpus: ['1'], lastPodEventAt: T0 - 10 * MIN }),
          host(whenEmpty, 'e1'),
          node('e2', { pool: whenEmpty, cpus: ['1'] }),
        ],
        { nodePools: [waiting, whenEmpty] },
      ),
    );
    expect(plan.commands.flatMap((c) => c.candidates.map((x) => x.name))).not.toContain('w2');
    expect(plan.commands.flatMap((c) => c.candidates.map((x) => x.nodePool))).not.toContain('e');
    expect(plan.rejected.find((r) => r.name === 'w2')?.blockers[0]).toMatch(/not consolidatable for another 20m/);
  });

  it('limits consolidation to the Underutilized budget', () => {
    const p = pool({ budgets: [{ nodes: '1', reasons: ['Underutilized'] }, { nodes: '100%' }] });
    const host = node('host', { pool: p, type: 'm5.4xlarge', cpus: ['2'] });
    const smalls = ['a', 'b', 'c'].map((n) => node(n, { pool: p, cpus: ['500m'] }));
    const plan = planDisruption(disruptionInput([host, ...smalls], { nodePools: [p] }));
    expect(plan.commands.flatMap((c) => c.candidates)).toHaveLength(1);
    expect(plan.rejected.filter((r) => r.blockers[0]?.startsWith('disruption budget'))).toHaveLength(2);
  });
});

describe('anti-churn', () => {
  it('never moves pods onto a node the same sweep removes, nor removes a node that just received pods', () => {
    const p = pool();
    const a = node('a', { pool: p, type: 'm5.xlarge', cpus: ['1'] });
    const b = node('b', { pool: p, type: 'm5.xlarge', cpus: ['1'] });
    const plan = planDisruption(disruptionInput([a, b], { nodePools: [p] }));
    const removed = new Set(plan.commands.flatMap((c) => c.candidates.map((x) => x.name)));
    for (const c of plan.commands) for (const target of Object.keys(c.moves)) expect(removed.has(target)).toBe(false);
    expect(removed.size).toBe(1);
  });

  it('never deletes a node that took pods from an earlier method of the same sweep (drift)', () => {
    const p = pool();
    const nodes = [
      // Drifted (an older kubelet): its pod moves onto the fullest node that stays, 'a-receiver'.
      node('drifted', { pool: p, type: 'm5.xlarge', cpus: ['1'], kubeletVersion: 'v1.30.4' }),
      // Equal savings ratios, so 'a-receiver' comes first by name: its own pod alone would fit on 'b'.
      node('a-receiver', { pool: p, type: 'm5.xlarge', cpus: ['1'] }),
      node('b', { pool: p, type: 'm5.xlarge', cpus: ['500m'] }),
    ];
    const plan = planDisruption(disruptionInput(nodes, { nodePools: [p], kubernetesVersion: '1.31' }));
    const drift = plan.commands.find((c) => c.reason === 'Drifted');
    expect(Object.keys(drift?.moves ?? {})).toEqual(['a-receiver']);
    const consolidated = plan.commands.filter((c) => c.reason === 'Underutilized').flatMap(names);
    expect(consolidated).toEqual(['b']);
  });

  it('requires the minimum saving before replacing', () => {
    const p = pool();
    // m5.xlarge ($0.192) holding 3 cpu: the cheapest holder is m6g.xlarge ($0.154), a 20% saving.
    const a = node('a', { pool: p, type: 'm5.xlarge', cpus: ['3'] });
    expect(planDisruption(disruptionInput([a], { nodePools: [p] })).commands).toHaveLength(1);
    const strict = planDisruption(disruptionInput([a], { nodePools: [p], options: { minSavingFraction: 0.25 } }));
    expect(strict.commands).toEqual([]);
    expect(strict.rejected[0]?.blockers[0]).toMatch(/no cheaper node holds its pods|saves less than 25%/);
  });

  it('never consolidates onto an offering cached as unavailable', () => {
    const p = pool();
    const a = node('a', { pool: p, type: 'm5.xlarge', cpus: ['3'] });
    const gone = ['us-east-1a', 'us-east-1b', 'us-east-1c'].map((zone) => ({
      instanceType: 'm6g.xlarge',
      zone,
      capacityType: 'on-demand' as const,
      expiresAt: T0 + MIN,
    }));
    const plan = planDisruption(disruptionInput([a], { nodePools: [p], unavailableOfferings: gone }));
    for (const c of plan.commands) {
      for (const r of c.replacements) {
        expect(r.cheapest.instanceType).not.toBe('m6g.xlarge');
        expect(r.instanceTypeOptions.map((t) => t.name)).not.toContain('m6g.xlarge');
      }
    }
  });

  it('keeps replacement options within the minimum saving of the cheapest, so no cheaper swap follows', () => {
    const p = pool();
    const a = node('a', { pool: p, type: 'm5.4xlarge', cpus: ['1500m', '1500m'] });
    const cmd = only(planDisruption(disruptionInput([a], { nodePools: [p] })).commands);
    const repl = cmd.replacements[0];
    const ceiling = (repl?.cheapest.price ?? 0) / 0.95;
    for (const t of repl?.instanceTypeOptions ?? []) {
      expect(
        Math.min(...t.offerings.filter((o) => o.capacityType === 'on-demand').map((o) => o.price)),
      ).toBeLessThanOrEqual(ceiling + 1e-9);
    }
  });

  /** Three replacing consolidations of the default pool in the last half hour: enough to back off. */
  const churnedHistory = () => ({
    default: [1, 2, 3].map((k) => ({
      at: T0 - k * 10 * MIN,
      reason: 'Underutilized' as const,
      removed: 1,
      launched: 1,
    })),
  });

  it('backs off a NodePool whose nodes churned, but still deletes', () => {
    const p = pool();
    const history = churnedHistory();
    const oversized = node('oversized', { pool: p, type: 'm5.4xlarge', cpus: ['1500m', '1500m'] });
    const plan = planDisruption(disruptionInput([oversized], { nodePools: [p], history }));
    expect(plan.commands).toEqual([]);
    expect(plan.rejected[0]?.blockers[0]).toMatch(/backing off: 3 replacing consolidations/);
    const old = { default: (history.default ?? []).map((e) => ({ ...e, at: e.at - 2 * HOUR })) };
    expect(planDisruption(disruptionInput([oversized], { nodePools: [p], history: old })).commands).toHaveLength(1);
  });

  it('backs off a Balanced NodePool too (Karpenter has no back-off; docs/disruption.md, Anti-churn)', () => {
    const p = pool({ policy: 'Balanced' });
    const history = churnedHistory();
    const oversized = node('oversized', { pool: p, type: 'm5.4xlarge', cpus: ['1500m', '1500m'] });
    const plan = planDisruption(disruptionInput([oversized], { nodePools: [p], history }));
    expect(plan.commands).toEqual([]);
    expect(plan.rejected[0]?.blockers[0]).toMatch(/backing off: 3 replacing consolidations/);
    // Without the history the Balanced score approves the same replacement.
    expect(planDisruption(disruptionInput([oversized], { nodePools: [p] })).commands).toHaveLength(1);
  });
});

describe('consolidation: constrained pods', () => {
  it('asks the solver when pods depend on other pods: anti-affinity keeps a pod off its peer node', () => {
    const p = pool();
    const spread = (n: string) => {
      const pod = boundPod(n, '500m', '512Mi', { labels: { app: 'x' } });
      pod.spec.affinity = {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'x' } } },
          ],
        },
      };
      return pod;
    };
    const a = node('a', { pool: p, type: 'm5.xlarge', pods: [spread('a')] });
    const b = node('b', {
      pool: p,
      type: 'm5.2xlarge',
      pods: [spread('b')],
      annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
    });
    const plan = planDisruption(disruptionInput([a, b], { nodePools: [p] }));
    const cmd = only(plan.commands);
    expect(names(cmd)).toEqual(['a']);
    expect(cmd.moves).toEqual({});
    expect(cmd.replacements).toHaveLength(1);
    expect(plan.stats.solverCalls).toBe(1);
  });

  it('bounds the full solves per sweep', () => {
    const p = pool();
    const zoned = (n: string) => {
      const pod = boundPod(n, '500m', '512Mi', { labels: { app: 'z' } });
      pod.spec.topologySpreadConstraints = [
        {
          maxSkew: 1,
          topologyKey: 'topology.kubernetes.io/zone',
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: { app: 'z' } },
        },
      ];
      return pod;
    };
    const nodes = ['a', 'b', 'c'].map((n) => node(n, { pool: p, type: 'm5.2xlarge', pods: [zoned(n)] }));
    const plan = planDisruption(disruptionInput(nodes, { nodePools: [p], options: { maxSolverChecks: 1 } }));
    expect(plan.stats.solverCalls).toBe(1);
    expect(plan.rejected.some((r) => /solver checks for this sweep used up/.test(r.blockers[0] ?? ''))).toBe(true);
  });
});
