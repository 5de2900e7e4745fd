// kubernetes-sigs/karpenter pkg/controllers/disruption/balanced_integration_test.go ("Mixed-Policy NodePools") and
// designs/balanced-consolidation.md: a Balanced NodePool's only threshold is its score; a move that saves any amount
// passes when it scores at least 1/k. Karpless's anti-churn minimum saving (`minSavingFraction`, 5 %) stays for
// WhenEmptyOrUnderutilized, where Karpenter takes any saving at all (docs/disruption.md, Anti-churn), and does not
// apply to Balanced pools, whose score already rejects the small savings that churn on.
import { describe, expect, it } from 'vitest';
import type { NodePool } from '../../../shared/api/karpenter';
import type { InstanceType } from '../../../shared/catalog/types';
import { planDisruption } from '../../../shared/disruption/plan';
import type { DisruptionCommand, DisruptionNode } from '../../../shared/disruption/types';
import { boundPod, disruptionInput, node, pool } from '../../../testkit/disruption';
import { makeInstanceType } from '../../../testkit/instance-types';

/** 2 vCPU types, room for 110 pods: the candidates' type, one 3 % cheaper, one 10 % cheaper, one 40 % cheaper. */
const type = (name: string, onDemand: number): InstanceType => makeInstanceType(name, { onDemand, pods: 110 });
const CURRENT = type('cur.large', 0.1);

/** A pool's candidate (one 1.95 cpu pod no other node has room for) and four nodes with 100 small pods each, protected
 * by do-not-disrupt: they are no candidates but weigh in the pool's totals, so a small saving on the candidate
 * scores well (savings 3 % of $0.10 over a $0.50 pool, 0.6 %, against 2 of 406 disruption, 0.5 %: score 1.22). */
function poolWith(
  name: string,
  policy: 'Balanced' | 'WhenEmptyOrUnderutilized',
): { p: NodePool; nodes: DisruptionNode[] } {
  const p = pool({ name, policy });
  const nodes = [
    node(`${name}-candidate`, { pool: p, instanceType: CURRENT, pods: [boundPod(`${name}-candidate`, '1950m')] }),
    ...[1, 2, 3, 4].map((i) =>
      node(`${name}-full-${i}`, {
        pool: p,
        instanceType: CURRENT,
        annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
        pods: Array.from({ length: 100 }, () => boundPod(`${name}-full-${i}`, '1m', '1Mi')),
      }),
    ),
  ];
  return { p, nodes };
}

function plan(types: InstanceType[]) {
  const b = poolWith('balanced', 'Balanced');
  const d = poolWith('default', 'WhenEmptyOrUnderutilized');
  const pools = [b.p, d.p];
  return planDisruption(
    disruptionInput([...b.nodes, ...d.nodes], {
      nodePools: pools,
      instanceTypes: new Map(pools.map((p) => [p.metadata.name, types])),
    }),
  );
}

const of = (commands: DisruptionCommand[], name: string) =>
  commands.find((c) => c.candidates.some((x) => x.name === name));

describe('balanced_integration_test.go Mixed-Policy NodePools', () => {
  it('should apply scoring to Balanced pools while non-Balanced pools consolidate normally (a 3 % saving)', () => {
    const p = plan([CURRENT, type('near.large', 0.097)]);
    const replaced = of(p.commands, 'balanced-candidate');
    expect(replaced?.replacements.map((r) => r.cheapest.instanceType)).toEqual(['near.large']);
    expect(replaced?.savingPerHour).toBeCloseTo(0.003, 6);
    const [score] = (replaced?.record.detail.score ?? []) as { approved: boolean; score: number }[];
    expect(score?.approved).toBe(true);
    expect(score?.score).toBeCloseTo(0.003 / 0.5 / (2 / 406), 2);
    // Karpless's departure: WhenEmptyOrUnderutilized keeps the 5 % floor, so the same move is not taken there.
    expect(of(p.commands, 'default-candidate')).toBeUndefined();
    expect(p.rejected.find((r) => r.name === 'default-candidate')?.blockers.join('\n')).toMatch(
      /no cheaper node holds its pods|saves less than 5%/,
    );
  });

  it('launches a Balanced replacement with every cheaper type, as Karpenter does; WhenEmptyOrUnderutilized narrows them to within 5 % of the cheapest', () => {
    const types = [CURRENT, type('near.large', 0.097), type('mid.large', 0.09), type('far.large', 0.06)];
    const p = plan(types);
    const options = (name: string) =>
      of(p.commands, name)?.replacements.flatMap((r) => r.instanceTypeOptions.map((t) => t.name));
    expect(options('balanced-candidate')).toEqual(['far.large', 'mid.large', 'near.large']);
    expect(options('default-candidate')).toEqual(['far.large']);
  });
});
