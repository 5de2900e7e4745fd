// kubernetes-sigs/karpenter pkg/controllers/disruption/balanced_test.go, balanced_scoring_test.go,
// balanced_adversarial_test.go and balanced_integration_test.go: the Balanced consolidation policy's score and the
// sweep that applies it. Karpenter's events (ConsolidationApproved) are the `score` of the command's decision record
// here; its single-node rejections are the Keep record's blocker.
import { describe, expect, it } from 'vitest';
import type { NodePool } from '../../../shared/api/karpenter';
import {
  BALANCED_K,
  evaluateBalanced,
  isBalanced,
  type PoolTotals,
  type ScoredMember,
  scoreMove,
} from '../../../shared/disruption/balanced';
import { planDisruption } from '../../../shared/disruption/plan';
import { Sweep } from '../../../shared/disruption/sweep';
import type { DisruptionCommand, DisruptionInput, DisruptionNode } from '../../../shared/disruption/types';
import { applyPlan, boundPod, disruptionInput, node, pool, priceOf } from '../../../testkit/disruption';

const totals = (cost: number, disruptionCost: number): PoolTotals => ({ cost, disruptionCost });
const balanced = (o: Parameters<typeof pool>[0] = {}): NodePool => pool({ ...o, policy: 'Balanced' });
const member = (p: NodePool, price: number, pods: number): ScoredMember => ({
  poolName: p.metadata.name,
  pool: p,
  price,
  rescheduleCost: 1 + pods,
});
const sweepOf = (input: DisruptionInput) => new Sweep(input);
const pods = (nodeName: string, n: number, cpu = '100m') => Array.from({ length: n }, () => boundPod(nodeName, cpu));
const scoreOf = (c: DisruptionCommand | undefined) =>
  c?.record.detail.score as { nodePool: string; score: number; k: number; threshold: number; approved: boolean }[];

describe('balanced_test.go ScoreMove', () => {
  // The RFC's pool: eight m7i.xlarge ($4.84/day) and two m7i.2xlarge; $58.08/day, 80 pods, 10 nodes: 90.
  const defaults = totals(58.08, 90);

  describe('when the move has clear savings', () => {
    it('should approve an oversized node consolidation', () => {
      const r = scoreMove('p', 7.26, 4, defaults, BALANCED_K);
      expect(r.approved).toBe(true);
      expect(r.savingsFraction).toBeCloseTo(7.26 / 58.08, 3);
      expect(r.disruptionFraction).toBeCloseTo(4 / 90, 3);
      expect(r.score).toBeCloseTo(7.26 / 58.08 / (4 / 90), 2);
    });
    it('should approve a spare capacity delete', () => {
      const r = scoreMove('p', 4.84, 5, defaults);
      expect(r.approved).toBe(true);
      expect(r.score).toBeCloseTo(4.84 / 58.08 / (5 / 90), 2);
    });
  });

  describe('when the move is marginal or harmful', () => {
    it('should reject a marginal move', () => {
      const r = scoreMove('p', 2.42, 9, defaults);
      expect(r.approved).toBe(false);
      expect(r.score).toBeCloseTo(2.42 / 58.08 / (9 / 90), 2);
    });
    it('should reject a well-packed node with zero savings', () => {
      const r = scoreMove('p', 0, 11, defaults);
      expect(r.approved).toBe(false);
      expect(r.score).toBe(0);
    });
  });

  describe('when the pool is uniform', () => {
    it('should approve a replace in a uniform pool', () => {
      const r = scoreMove('p', 2.42, 9, totals(48.4, 90));
      expect(r.approved).toBe(true);
      expect(r.score).toBeCloseTo(0.5, 2);
    });
  });

  describe('when disruption costs vary across nodes', () => {
    it('should approve low-disruption nodes and reject high-disruption nodes', () => {
      const het = totals(58.08, 117);
      const a = scoreMove('p', 4.84, 5, het);
      const b = scoreMove('p', 4.84, 32, het);
      expect(a.approved).toBe(true);
      expect(a.score).toBeCloseTo(4.84 / 58.08 / (5 / 117), 2);
      expect(b.approved).toBe(false);
      expect(b.score).toBeCloseTo(4.84 / 58.08 / (32 / 117), 2);
    });
  });

  describe('scale invariance', () => {
    it('should produce the same score regardless of pool size', () => {
      const ten = scoreMove('p', 7.26, 4, defaults);
      const hundred = scoreMove('p', 7.26, 4, totals(580.8, 900));
      expect(ten.score).toBeCloseTo(hundred.score, 2);
      expect(ten.score).toBeCloseTo(7.26 / 58.08 / (4 / 90), 2);
    });
  });

  describe('edge cases with zero values', () => {
    it('should approve with +Inf score when move disruption is zero and savings positive', () => {
      const r = scoreMove('p', 4.84, 0, defaults);
      expect(r.approved).toBe(true);
      expect(r.score).toBe(Number.POSITIVE_INFINITY);
    });
    it('should reject when both savings and disruption are zero', () => {
      expect(scoreMove('p', 0, 0, defaults).approved).toBe(false);
    });
    it('should reject when nodepool cost is zero', () => {
      expect(scoreMove('p', 4.84, 5, totals(0, 90)).approved).toBe(false);
    });
    it('should approve when move disruption is zero (division by zero guard)', () => {
      expect(scoreMove('p', 4.84, 0, defaults).approved).toBe(true);
    });
  });

  describe('consolidation threshold tuning', () => {
    it('should reject at k=2 for a marginal move', () => {
      expect(scoreMove('p', 2.42, 9, defaults, 2).approved).toBe(false);
    });
    it('should approve at k=3 for the same move', () => {
      expect(scoreMove('p', 2.42, 9, defaults, 3).approved).toBe(true);
    });
    it('should reject at k=1 for the same move', () => {
      expect(scoreMove('p', 2.42, 9, defaults, 1).approved).toBe(false);
    });
  });

  describe('cross-NodePool scoring', () => {
    it('should produce identical scores for proportionally equivalent moves', () => {
      const od = scoreMove('od', 4.84, 4, totals(48.4, 90));
      const spot = scoreMove('spot', 1.45, 4, totals(14.5, 90));
      expect(od.score).toBeCloseTo(spot.score, 2);
      expect(od.approved && spot.approved).toBe(true);
    });
  });
});

describe('balanced_test.go ConsolidationPolicy.IsBalanced', () => {
  it('should be true for Balanced policy', () => expect(isBalanced(balanced())).toBe(true));
  it('should be false for WhenEmptyOrUnderutilized policy', () =>
    expect(isBalanced(pool({ policy: 'WhenEmptyOrUnderutilized' }))).toBe(false));
  it('should be false for WhenEmpty policy', () => expect(isBalanced(pool({ policy: 'WhenEmpty' }))).toBe(false));
});

describe('balanced_scoring_test.go Balanced Scoring', () => {
  describe('computeNodePoolTotals', () => {
    it('should produce totals from ALL candidates, not just a filtered subset', () => {
      const p = balanced({ name: 'pool-a' });
      // Two of the five are no candidates (do-not-disrupt, not yet stable): they still count.
      const nodes = ['a', 'b', 'c', 'd', 'e'].map((n, i) =>
        node(n, {
          pool: p,
          type: 'm5.xlarge',
          cpus: ['100m'],
          ...(i === 0 ? { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } } : {}),
        }),
      );
      const t = sweepOf(disruptionInput(nodes, { nodePools: [p] })).poolTotals.get('pool-a');
      expect(t?.cost).toBeCloseTo(5 * 0.192, 6);
      // Each node: 1 (the node) + 1 (one pod at the default eviction cost).
      expect(t?.disruptionCost).toBe(10);
    });

    it('should accumulate disruption from zero-priced candidates', () => {
      const p = balanced({ name: 'pool-b' });
      const unpriced = node('nil', { pool: p, cpus: ['100m'] });
      delete unpriced.node.pricePerHour;
      delete unpriced.claim.pricePerHour;
      unpriced.node.instanceType = 'unknown.type';
      unpriced.claim.instanceType = 'unknown.type';
      const nodes = [
        node('good-1', { pool: p, cpus: ['100m'] }),
        unpriced,
        node('good-2', { pool: p, cpus: ['100m'] }),
      ];
      const t = sweepOf(disruptionInput(nodes, { nodePools: [p] })).poolTotals.get('pool-b');
      expect(t?.cost).toBeCloseTo(2 * 0.192, 6);
      expect(t?.disruptionCost).toBe(6);
    });
  });

  describe('EvaluateBalancedMove', () => {
    it('should reject when command has zero candidates', () => {
      const r = evaluateBalanced([], 0, new Map([['pool-a', totals(100, 50)]]));
      expect(r.approved).toBe(false);
      expect(r.scores).toEqual([]);
    });

    it('should skip non-Balanced pools and approve unconditionally', () => {
      const p = pool({ name: 'pool-nobalanced' });
      const r = evaluateBalanced(
        [member(p, 4.84, 1), member(p, 4.84, 1)],
        9.68,
        new Map([['pool-nobalanced', totals(24.2, 10)]]),
      );
      expect(r.scores.map((s) => s.nodePool)).not.toContain('pool-nobalanced');
      expect(r.approved).toBe(true);
    });

    it('should reject when candidate NodePool is missing from totals map', () => {
      const r = evaluateBalanced([member(balanced({ name: 'pool-missing' }), 4.84, 1)], 4.84, new Map());
      expect(r.scores[0]?.score).toBe(0);
      expect(r.scores[0]?.approved).toBe(false);
      expect(r.approved).toBe(false);
    });

    it('should approve a delete command for a single Balanced NodePool', () => {
      const p = balanced({ name: 'pool-single' });
      const nodes = Array.from({ length: 10 }, (_, i) => node(`n${i}`, { pool: p, cpus: ['100m'] }));
      const sw = sweepOf(disruptionInput(nodes, { nodePools: [p] }));
      const r = evaluateBalanced([sw.facts[0] as ScoredMember], 0.192, sw.poolTotals);
      expect(r.approved).toBe(true);
      expect(r.scores[0]?.score).toBeCloseTo(1, 6);
    });

    it('should attribute savings proportionally in cross-NodePool scenarios', () => {
      const b = balanced({ name: 'pool-balanced' });
      const e = pool({ name: 'pool-empty' });
      const nodes = [
        ...Array.from({ length: 5 }, (_, i) => node(`b${i}`, { pool: b, cpus: ['100m'] })),
        ...Array.from({ length: 5 }, (_, i) => node(`e${i}`, { pool: e, cpus: ['100m'] })),
      ];
      const sw = sweepOf(disruptionInput(nodes, { nodePools: [b, e] }));
      const move = [sw.facts[0], sw.facts[5]] as ScoredMember[];
      const r = evaluateBalanced(move, 2 * 0.192, sw.poolTotals);
      // pool-balanced's share of the saving is half: 0.192 of its 0.96, for 2 of its 10.
      expect(r.scores).toHaveLength(1);
      expect(r.scores[0]?.savings).toBeCloseTo(0.192, 6);
      expect(r.scores[0]?.score).toBeCloseTo(1, 6);
      expect(r.approved).toBe(true);
    });

    describe('AllPoolsMustApprove', () => {
      it('should reject when any Balanced pool rejects', () => {
        const a = balanced({ name: 'pool-a' });
        const b = balanced({ name: 'pool-b' });
        const poolA = new Map([['pool-a', totals(10 * 4.84, 20)]]);
        // pool-b: a cheap node with 20 pods among two dearer ones with one pod each.
        const all = new Map([...poolA, ['pool-b', totals(1 + 4 + 4, 21 + 2 + 2)]]);
        const r = evaluateBalanced([member(a, 4.84, 1), member(b, 1, 20)], 5.84, all);
        expect(r.scores.find((s) => s.nodePool === 'pool-a')?.approved).toBe(true);
        expect(r.scores.find((s) => s.nodePool === 'pool-b')?.approved).toBe(false);
        expect(r.approved).toBe(false);
      });
    });
  });

  describe('sumCandidatePrices', () => {
    it('should return 0 for nil instanceType', () => {
      const p = balanced();
      const n = node('n', { pool: p });
      delete n.node.pricePerHour;
      delete n.claim.pricePerHour;
      n.node.instanceType = 'unknown.type';
      n.claim.instanceType = 'unknown.type';
      expect(sweepOf(disruptionInput([n], { nodePools: [p] })).facts[0]?.price).toBe(0);
    });
    it('should return the offering price for a valid instanceType', () => {
      const p = balanced();
      const n = node('n', { pool: p, type: 'm5.xlarge' });
      delete n.node.pricePerHour;
      delete n.claim.pricePerHour;
      expect(sweepOf(disruptionInput([n], { nodePools: [p] })).facts[0]?.price).toBeCloseTo(0.192, 6);
    });
  });

  describe('ScoreMove (SavingsRatio)', () => {
    const t = totals(100, 100);
    it.each([
      ['high savings low disruption', 20, 5, 4, true],
      ['equal fractions', 10, 10, 1, true],
      ['low savings high disruption', 5, 50, 0.1, false],
      ['zero disruption cost', 10, 0, Number.POSITIVE_INFINITY, true],
      ['zero savings', 0, 10, 0, false],
      ['negative savings', -5, 10, 0, false],
    ])('should compute correct scores (%s)', (_, savings, disruption, want, approved) => {
      const r = scoreMove('p', savings, disruption, t, 2);
      if (Number.isFinite(want)) expect(r.score).toBeCloseTo(want, 2);
      else expect(r.score).toBe(want);
      expect(r.approved).toBe(approved);
    });
  });

  describe('ShouldDisrupt', () => {
    // A node whose one pod fits on its neighbour: a candidate under both policies, so it is deleted.
    const twoNodes = (p: NodePool) => [
      node('big', { pool: p, type: 'm5.2xlarge', cpus: ['2', '2'] }),
      node('small', { pool: p, type: 'm5.xlarge', cpus: ['1'] }),
    ];
    it('should accept Balanced candidates', () => {
      const p = balanced();
      const plan = planDisruption(disruptionInput(twoNodes(p), { nodePools: [p] }));
      expect(plan.commands.flatMap((c) => c.candidates.map((x) => x.name))).toEqual(['small']);
    });
    it('should accept WhenEmptyOrUnderutilized candidates', () => {
      const p = pool();
      const plan = planDisruption(disruptionInput(twoNodes(p), { nodePools: [p] }));
      expect(plan.commands.flatMap((c) => c.candidates.map((x) => x.name))).toEqual(['small']);
    });
  });

  describe('EmitBalancedMultiNodeEvents', () => {
    it('should emit approved event for approved pool results', () => {
      const p = balanced({ name: 'pool-emit-a' });
      const nodes = ['a', 'b', 'c'].map((n) => node(n, { pool: p, type: 'm5.4xlarge', cpus: ['1'] }));
      const [cmd] = planDisruption(disruptionInput(nodes, { nodePools: [p] })).commands;
      expect(cmd?.candidates.length).toBeGreaterThanOrEqual(2);
      expect(scoreOf(cmd)).toEqual([expect.objectContaining({ nodePool: 'pool-emit-a', k: 2, approved: true })]);
    });

    it('should not emit events for rejected pool results', () => {
      const p = balanced({ name: 'pool-emit-b' });
      // A cheap node carrying most of the pool's pods: even deleting it scores below 0.5.
      const nodes = [
        node('cheap', { pool: p, type: 'm5.large', pods: pods('cheap', 12) }),
        // The cheapest type that holds its pod: never replaced.
        node('dear', { pool: p, type: 'm6g.4xlarge', cpus: ['15'] }),
      ];
      const plan = planDisruption(disruptionInput(nodes, { nodePools: [p] }));
      expect(plan.commands).toEqual([]);
      expect(plan.rejected.find((r) => r.name === 'cheap')?.blockers.join('\n')).toMatch(
        /^Balanced NodePool pool-emit-b: replacing it score 0\.03 < threshold 0\.50 \(k: 2, savings 2\.7%, disruption 86\.7%\)/m,
      );
    });

    it('should skip pools missing from perPoolResults', () => {
      const a = balanced({ name: 'pool-a-emit' });
      const b = pool({ name: 'pool-b-emit' });
      const nodes = [
        node('a1', { pool: a, type: 'm5.4xlarge', cpus: ['1'] }),
        node('b1', { pool: b, type: 'm5.4xlarge', cpus: ['1'] }),
        node('b2', { pool: b, type: 'm5.4xlarge', cpus: ['1'] }),
      ];
      const [cmd] = planDisruption(disruptionInput(nodes, { nodePools: [a, b] })).commands;
      expect(cmd?.candidates.map((c) => c.nodePool).sort()).toEqual(['pool-a-emit', 'pool-b-emit']);
      expect(scoreOf(cmd)?.map((s) => s.nodePool)).toEqual(['pool-a-emit']);
    });
  });
});

describe('balanced_adversarial_test.go Adversarial', () => {
  it('should not allow NaN price to poison NodePool totals', () => {
    const p = balanced({ name: 'pool-nan' });
    const nan = node('nan', { pool: p, cpus: ['100m'] });
    nan.node.pricePerHour = Number.NaN;
    const nodes = [node('good-1', { pool: p, cpus: ['100m'] }), nan, node('good-2', { pool: p, cpus: ['100m'] })];
    const t = sweepOf(disruptionInput(nodes, { nodePools: [p] })).poolTotals.get('pool-nan');
    expect(Number.isNaN(t?.cost)).toBe(false);
    expect(Number.isNaN(scoreMove('pool-nan', 0.192, 2, t).score)).toBe(false);
  });

  it('should populate perPool entries for all pools even on early return', () => {
    const a = balanced({ name: 'pool-a' });
    const b = balanced({ name: 'pool-b' });
    const all = new Map([
      ['pool-a', totals(4, 23)],
      ['pool-b', totals(10, 20)],
    ]);
    const r = evaluateBalanced([member(a, 1, 20), member(b, 1, 1)], 2, all);
    expect(r.approved).toBe(false);
    expect(r.scores.map((s) => s.nodePool).sort()).toEqual(['pool-a', 'pool-b']);
    for (const s of r.scores) expect(s.k).toBe(2);
  });

  it('should sum candidate costs correctly with nil instanceType', () => {
    const p = balanced({ name: 'pool-mixed' });
    const unpriced = node('nil', { pool: p, cpus: ['100m'] });
    delete unpriced.node.pricePerHour;
    delete unpriced.claim.pricePerHour;
    unpriced.node.instanceType = 'unknown.type';
    unpriced.claim.instanceType = 'unknown.type';
    const nodes = [node('good-1', { pool: p }), unpriced, node('good-2', { pool: p })];
    expect(sweepOf(disruptionInput(nodes, { nodePools: [p] })).poolTotals.get('pool-mixed')?.cost).toBeCloseTo(
      0.384,
      6,
    );
  });

  it('should use source pricing that ignores availability', () => {
    const p = balanced({ name: 'pool-avail' });
    const n = node('src', { pool: p, type: 'm5.xlarge', cpus: ['100m'] });
    const sw = sweepOf(
      disruptionInput([n], {
        nodePools: [p],
        // The running node's offering can no longer be launched: it still costs what it costs.
        unavailableOfferings: [
          {
            instanceType: 'm5.xlarge',
            zone: 'us-east-1a',
            capacityType: 'on-demand',
            expiresAt: Number.MAX_SAFE_INTEGER,
          },
        ],
      }),
    );
    expect(sw.facts[0]?.price).toBe(priceOf('m5.xlarge', 'on-demand'));
  });

  it('should approve single-node pool DELETE with expected scoring', () => {
    const p = balanced({ name: 'pool-single' });
    const sw = sweepOf(disruptionInput([node('only', { pool: p, cpus: ['100m'] })], { nodePools: [p] }));
    const r = evaluateBalanced([sw.facts[0] as ScoredMember], 0.192, sw.poolTotals);
    expect(r.approved).toBe(true);
    expect(r.scores[0]?.score).toBeCloseTo(1, 6);
  });
});

describe('balanced_integration_test.go Balanced Consolidation', () => {
  describe('Single-Node', () => {
    it('should approve replacing an oversized node', () => {
      const p = balanced();
      const plan = planDisruption(
        disruptionInput([node('big', { pool: p, type: 'm5.4xlarge', cpus: ['500m'] })], { nodePools: [p] }),
      );
      const [cmd] = plan.commands;
      expect(cmd?.replacements).toHaveLength(1);
      expect(cmd?.replacements[0]?.cheapest.instanceType).not.toBe('m5.4xlarge');
      const [s] = scoreOf(cmd);
      expect(s).toMatchObject({ nodePool: 'default', k: 2, threshold: 0.5, approved: true });
      expect(s?.score).toBeGreaterThanOrEqual(0.5);
    });

    it('should reject replacing a well-packed node', () => {
      const p = balanced();
      const plan = planDisruption(
        disruptionInput([node('packed', { pool: p, type: 'm6g.large', pods: pods('packed', 4, '450m') })], {
          nodePools: [p],
        }),
      );
      expect(plan.commands).toEqual([]);
      expect(plan.records.some((r) => r.kind === 'Disrupt')).toBe(false);
    });
  });

  describe('Multi-Node', () => {
    it('should approve consolidating multiple underutilized nodes', () => {
      const p = balanced();
      const nodes = ['a', 'b', 'c'].map((n) => node(n, { pool: p, type: 'm5.4xlarge', cpus: ['1'] }));
      const plan = planDisruption(disruptionInput(nodes, { nodePools: [p] }));
      expect(plan.commands).toHaveLength(1);
      expect(plan.commands[0]?.candidates.length).toBeGreaterThanOrEqual(2);
      expect(scoreOf(plan.commands[0])[0]?.approved).toBe(true);
    });
  });

  describe('Budgets', () => {
    it('should block disruption when budget is 0%', () => {
      const p = balanced({ budgets: [{ nodes: '0%' }] });
      const plan = planDisruption(
        disruptionInput([node('big', { pool: p, type: 'm5.4xlarge', cpus: ['500m'] })], { nodePools: [p] }),
      );
      expect(plan.commands).toEqual([]);
      expect(plan.rejected[0]?.blockers.join('\n')).toMatch(/disruption budget/);
    });
  });

  describe('Priority Ordering', () => {
    it('should consolidate empty nodes before non-empty nodes when budget is limited', () => {
      const p = balanced({ budgets: [{ nodes: '1' }] });
      const nodes = [
        node('empty', { pool: p, type: 'm5.4xlarge' }),
        node('underutilized', { pool: p, type: 'm5.4xlarge', cpus: ['500m'] }),
      ];
      const plan = planDisruption(disruptionInput(nodes, { nodePools: [p] }));
      expect(plan.commands).toHaveLength(1);
      expect(plan.commands[0]?.candidates.map((c) => c.name)).toEqual(['empty']);
    });
  });

  describe('Decision and Savings', () => {
    it('should choose delete when pods fit on existing nodes', () => {
      const p = balanced();
      const nodes = [
        node('a', { pool: p, type: 'm5.4xlarge', cpus: ['1'] }),
        // Heavily used, so it is not worth moving, with room for a's pod.
        node('b', { pool: p, type: 'm5.4xlarge', pods: pods('b', 14, '1') }),
      ];
      const plan = planDisruption(disruptionInput(nodes, { nodePools: [p] }));
      const del = plan.commands.find((c) => c.replacements.length === 0);
      expect(del?.candidates.map((c) => c.name)).toEqual(['a']);
      expect(del?.savingPerHour).toBeCloseTo(0.768, 6);
    });

    it('should choose replace when pods need a new cheaper node', () => {
      const p = balanced();
      const plan = planDisruption(
        disruptionInput([node('a', { pool: p, type: 'm5.4xlarge', cpus: ['2'] })], { nodePools: [p] }),
      );
      expect(plan.commands).toHaveLength(1);
      const cmd = plan.commands[0];
      expect(cmd?.replacements).toHaveLength(1);
      expect(cmd?.savingPerHour).toBeGreaterThan(0);
      expect(cmd?.savingPerHour).toBeLessThan(0.768);
    });
  });

  describe('Ratio Sort in Multi-Node', () => {
    it('should select highest-ratio candidates first when nodes have heterogeneous prices and pod counts', () => {
      const p = balanced();
      const nodes = [
        node('a', { pool: p, type: 'm5.4xlarge', pods: pods('a', 10) }),
        node('b', { pool: p, type: 'm5.2xlarge', pods: pods('b', 1) }),
        node('c', { pool: p, type: 'm5.xlarge', pods: pods('c', 8) }),
      ];
      const [cmd] = planDisruption(disruptionInput(nodes, { nodePools: [p] })).commands;
      const names = cmd?.candidates.map((c) => c.name) ?? [];
      expect(names).toContain('b');
      if (names.includes('c')) expect(names.indexOf('b')).toBeLessThan(names.indexOf('c'));
    });
  });

  describe('Mixed-Policy NodePools', () => {
    it('should apply scoring to Balanced pools while non-Balanced pools consolidate normally', () => {
      const b = balanced({ name: 'balanced' });
      const d = pool({ name: 'default' });
      const input = disruptionInput(
        [
          node('balanced-node', { pool: b, type: 'm5.4xlarge', cpus: ['500m'] }),
          node('default-node', { pool: d, type: 'm5.4xlarge', cpus: ['500m'] }),
        ],
        { nodePools: [b, d] },
      );
      const first = planDisruption(input);
      const second = planDisruption(applyPlan(input, first));
      const gone = [...first.commands, ...second.commands].flatMap((c) => c.candidates.map((x) => x.name));
      expect(gone).toEqual(expect.arrayContaining(['balanced-node', 'default-node']));
      const scored = [...first.commands, ...second.commands].flatMap((c) => scoreOf(c) ?? []);
      expect(scored.length).toBeGreaterThan(0);
      expect(scored.every((s) => s.nodePool === 'balanced' && s.k === 2 && s.approved)).toBe(true);
    });
  });
});

describe('Balanced: the RFC examples on the sweep', () => {
  /** Four m5.xlarge: three full of two 1900m pods each, one with eight 400m pods that no other node can take. */
  function marginal(policy: NodePool['spec']['disruption']['consolidationPolicy']): DisruptionInput {
    const p = pool({ policy });
    const nodes: DisruptionNode[] = [
      node('x', { pool: p, type: 'm5.xlarge', pods: pods('x', 8, '400m') }),
      ...['f1', 'f2', 'f3'].map((n) => node(n, { pool: p, type: 'm5.xlarge', pods: pods(n, 2, '1900m') })),
    ];
    return disruptionInput(nodes, { nodePools: [p] });
  }

  it('replaces a node for a small saving under WhenEmptyOrUnderutilized', () => {
    const [cmd] = planDisruption(marginal('WhenEmptyOrUnderutilized')).commands;
    expect(cmd?.candidates.map((c) => c.name)).toContain('x');
    expect(cmd?.replacements.length).toBeGreaterThan(0);
    expect(cmd?.record.detail.score).toBeUndefined();
  });

  it('keeps the same node under Balanced: the saving is small next to the pods it disrupts (Marginal Move)', () => {
    const plan = planDisruption(marginal('Balanced'));
    expect(plan.commands).toEqual([]);
    const keep = plan.records.find((r) => r.kind === 'Keep' && r.nodeClaims[0] === 'claim-x');
    expect(keep?.summary).toMatch(
      /Balanced NodePool default: replacing (it|its 2 nodes) score 0\.\d\d < threshold 0\.50 \(k: 2, savings \d+\.\d%, disruption \d+\.\d%\)/,
    );
  });

  it('judges a constrained candidate by its best case before solving it', () => {
    const p = balanced();
    // Host-port pods are constrained (one full solve each); twelve of them on a cheap node make even a delete fail.
    const hostPort = (n: string) =>
      pods(n, 12).map((pod, i) => {
        pod.spec.containers[0] = {
          ...(pod.spec.containers[0] as object),
          name: 'c',
          ports: [{ containerPort: 80, hostPort: 8000 + i }],
        };
        return pod;
      });
    const nodes = [
      node('cheap', { pool: p, type: 'm5.large', pods: hostPort('cheap') }),
      node('dear', {
        pool: p,
        type: 'm6g.4xlarge',
        cpus: ['15'],
        annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
      }),
    ];
    const plan = planDisruption(disruptionInput(nodes, { nodePools: [p] }));
    expect(plan.commands).toEqual([]);
    expect(plan.stats.solverCalls).toBe(0);
    expect(plan.rejected.find((r) => r.name === 'cheap')?.blockers[0]).toMatch(
      /^Balanced NodePool default: even deleting it score 0\.\d\d < threshold 0\.50/,
    );
  });
});
