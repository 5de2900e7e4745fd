// Karpenter's emptiness, drift and expiration scenarios on the pure sweep.
import { describe, expect, it } from 'vitest';
import { boundPod, disruptionInput, HOUR, MIN, node, pdb, pool, T0 } from '../../testkit/disruption';
import { planDisruption } from './plan';

const names = (plan: ReturnType<typeof planDisruption>, reason: string): string[] =>
  plan.commands.filter((c) => c.reason === reason).flatMap((c) => c.candidates.map((x) => x.name));

describe('emptiness', () => {
  it('removes empty nodes only after consolidateAfter without pod changes', () => {
    const p = pool({ consolidateAfter: '5m' });
    const fresh = node('fresh', { pool: p, lastPodEventAt: T0 - 2 * MIN });
    const settled = node('settled', { pool: p, lastPodEventAt: T0 - 6 * MIN });
    const plan = planDisruption(disruptionInput([fresh, settled], { nodePools: [p] }));
    expect(names(plan, 'Empty')).toEqual(['settled']);
    expect(plan.rejected.find((r) => r.name === 'fresh')?.blockers[0]).toMatch(/not consolidatable for another 3m/);
    expect(plan.commands[0]?.savingPerHour).toBeCloseTo(0.192);
  });

  it('applies to WhenEmpty pools too, but never with consolidateAfter Never', () => {
    const whenEmpty = pool({ name: 'we', policy: 'WhenEmpty' });
    const never = pool({ name: 'nv', consolidateAfter: 'Never' });
    const plan = planDisruption(
      disruptionInput([node('a', { pool: whenEmpty }), node('b', { pool: never })], { nodePools: [whenEmpty, never] }),
    );
    expect(names(plan, 'Empty')).toEqual(['a']);
    expect(plan.rejected[0]?.blockers[0]).toMatch(/consolidateAfter: Never/);
  });

  it('lets a budget limit how many empty nodes go at once, counting nodes already disrupting', () => {
    const p = pool({ budgets: [{ nodes: '30%' }] });
    const nodes = Array.from({ length: 10 }, (_, i) => node(`n${i}`, { pool: p }));
    expect(names(planDisruption(disruptionInput(nodes, { nodePools: [p] })), 'Empty')).toHaveLength(3);
    const draining = [...nodes.slice(0, 9), node('gone', { pool: p, markedForDeletion: true })];
    const plan = planDisruption(disruptionInput(draining, { nodePools: [p] }));
    expect(names(plan, 'Empty')).toHaveLength(2);
    expect(plan.rejected.filter((r) => r.blockers[0]?.startsWith('disruption budget'))).toHaveLength(7);
  });

  it('respects do-not-disrupt on the node and fresh nominations', () => {
    const p = pool();
    const plan = planDisruption(
      disruptionInput(
        [
          node('dnd', { pool: p, annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }),
          node('nominated', { pool: p, nominatedAt: T0 - 5000 }),
          node('old-nomination', { pool: p, nominatedAt: T0 - 60_000 }),
        ],
        { nodePools: [p] },
      ),
    );
    expect(names(plan, 'Empty')).toEqual(['old-nomination']);
    expect(plan.rejected.map((r) => r.blockers[0])).toEqual([
      'node has karpenter.sh/do-not-disrupt',
      'nominated 5s ago',
    ]);
    expect(plan.records.filter((r) => r.kind === 'Keep')).toHaveLength(2);
  });

  it('blocks emptiness inside a scheduled zero budget only', () => {
    const p = pool({ budgets: [{ nodes: '0', schedule: '0 12 * * *', duration: '1h' }] });
    const inside = planDisruption(disruptionInput([node('a', { pool: p })], { nodePools: [p], now: T0 + 30 * MIN }));
    expect(inside.commands).toHaveLength(0);
    expect(inside.rejected[0]?.blockers[0]).toMatch(/schedule 0 12 \* \* \* for 1h/);
    const after = planDisruption(disruptionInput([node('a', { pool: p })], { nodePools: [p], now: T0 + 90 * MIN }));
    expect(names(after, 'Empty')).toEqual(['a']);
  });
});

describe('drift', () => {
  it('takes empty drifted nodes first, then the oldest, within the Drifted budget', () => {
    const before = pool({ labels: { team: 'a' } });
    const drifted = { labels: { team: 'b' }, policy: 'WhenEmpty' as const, consolidateAfter: '10m' };
    const after = pool({ ...drifted, budgets: [{ nodes: '2', reasons: ['Drifted'] }, { nodes: '100%' }] });
    // Not drifted, room for everyone; emptiness skips the empty drifted node (pods left it a moment ago).
    const keep = node('keeper', { pool: after, type: 'm5.4xlarge', cpus: ['1'] });
    const young = node('young', { pool: before, cpus: ['500m'], createdAt: T0 - 1 * HOUR });
    const old = node('old', { pool: before, cpus: ['500m'], createdAt: T0 - 5 * HOUR });
    const empty = node('empty', { pool: before, createdAt: T0 - 1 * HOUR, lastPodEventAt: T0 });
    const plan = planDisruption(disruptionInput([keep, young, old, empty], { nodePools: [after] }));
    expect(names(plan, 'Drifted')).toEqual(['empty', 'old']);
    expect(plan.rejected.find((r) => r.name === 'young')?.blockers[0]).toMatch(/drifted .* disruption budget/);
    const oldCmd = plan.commands.find((c) => c.candidates[0]?.name === 'old');
    expect(oldCmd?.moves.keeper).toHaveLength(1);
    const drift = oldCmd?.record.detail.drift as Record<string, string> | undefined;
    expect(drift?.old).toMatch(/template changed/);
  });

  it('launches a replacement when drifted pods fit nowhere else, and never moves pods onto drifted nodes', () => {
    const before = pool({ labels: { team: 'a' } });
    const after = pool({ labels: { team: 'b' } });
    const a = node('a', { pool: before, cpus: ['3'] });
    const b = node('b', { pool: before, type: 'm5.4xlarge' }); // drifted, empty, lots of room
    const plan = planDisruption(disruptionInput([a, b], { nodePools: [after] }));
    const cmd = plan.commands.find((c) => c.candidates[0]?.name === 'a');
    expect(cmd?.replacements).toHaveLength(1);
    expect(cmd?.moves).toEqual({});
  });

  it('does not drain drifted nodes whose pods a PDB protects', () => {
    const before = pool({ labels: { team: 'a' } });
    const after = pool({ labels: { team: 'b' } });
    const a = node('a', { pool: before, pods: [boundPod('a', '500m', '512Mi', { labels: { app: 'db' } })] });
    const b = node('b', {
      pool: after,
      type: 'm5.2xlarge',
      pods: [boundPod('b', '500m', '512Mi', { labels: { app: 'db' } })],
    });
    const plan = planDisruption(disruptionInput([a, b], { nodePools: [after], pdbs: [pdb('db', { app: 'db' }, 0)] }));
    expect(plan.commands).toHaveLength(0);
    expect(plan.rejected[0]?.blockers[0]).toMatch(/PodDisruptionBudget default\/db allows 0/);
  });
});

describe('drift budgets', () => {
  it('a scheduled Drifted budget blocks drift inside its window only, leaving emptiness alone', () => {
    const before = pool({ labels: { team: 'a' } });
    const budgets = [{ nodes: '0', schedule: '0 12 * * *', duration: '2h', reasons: ['Drifted' as const] }];
    // WhenEmpty: otherwise consolidation may still take the drifted node under the Underutilized budget, as in
    // Karpenter, where reason-specific budgets only restrain their own reason.
    const after = pool({ labels: { team: 'b' }, policy: 'WhenEmpty', budgets: [...budgets, { nodes: '100%' }] });
    const nodes = () => [node('drifted', { pool: before, cpus: ['1'] }), node('empty', { pool: after })];
    const inside = planDisruption(disruptionInput(nodes(), { nodePools: [after], now: T0 + HOUR }));
    expect(names(inside, 'Drifted')).toEqual([]);
    expect(names(inside, 'Empty')).toEqual(['empty']);
    expect(inside.rejected.find((r) => r.name === 'drifted')?.blockers[0]).toMatch(/no more Drifted disruptions/);
    const outside = planDisruption(disruptionInput(nodes(), { nodePools: [after], now: T0 + 3 * HOUR }));
    expect(names(outside, 'Drifted')).toEqual(['drifted']);
  });
});

describe('expiration', () => {
  it('is forceful: ignores budgets, do-not-disrupt and PDBs, recording what the drain will wait on', () => {
    const p = pool({ expireAfter: '24h', budgets: [{ nodes: '0' }] });
    const pods = [
      boundPod('old', '500m', '512Mi', {
        labels: { app: 'db' },
        annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
      }),
    ];
    const old = node('old', { pool: p, pods, createdAt: T0 - 25 * HOUR });
    const young = node('young', { pool: p, cpus: ['500m'], createdAt: T0 - 2 * HOUR });
    const plan = planDisruption(disruptionInput([old, young], { nodePools: [p], pdbs: [pdb('db', { app: 'db' }, 0)] }));
    const cmd = plan.commands.find((c) => c.reason === 'Expired');
    expect(cmd?.forceful).toBe(true);
    expect(cmd?.candidates.map((c) => c.name)).toEqual(['old']);
    expect(cmd?.record.detail.drainWaitsOn).toEqual([
      `pod default/${pods[0]?.metadata.name} has karpenter.sh/do-not-disrupt`,
      `PodDisruptionBudget default/db allows 0 disruptions now (pod default/${pods[0]?.metadata.name})`,
    ]);
    expect(cmd?.record.detail.terminationGracePeriod).toMatch(/unset/);
  });
});

describe('candidates', () => {
  it('skips in-flight claims without a record, and moves no pods onto them', () => {
    const p = pool();
    const launching = node('launching', { pool: p, type: 'm5.4xlarge', state: 'Launched', cpus: ['1'] });
    launching.node.inflight = true;
    const small = node('small', { pool: p, cpus: ['1'] });
    const plan = planDisruption(disruptionInput([launching, small], { nodePools: [p] }));
    expect(plan.rejected.map((r) => r.name)).not.toContain('launching');
    expect(plan.commands.flatMap((c) => c.candidates.map((x) => x.name))).not.toContain('launching');
    expect(plan.commands.flatMap((c) => Object.keys(c.moves))).not.toContain('launching');
  });
});
