// kubernetes-sigs/karpenter pkg/controllers/disruption/suite_test.go, the BuildDisruptionBudgetMapping cases, on the
// scenario runner: what counts against a NodePool's disruption budget.
import { describe, expect, it } from 'vitest';
import { Sweep } from '../../../shared/disruption/sweep';
import { disruptionInput, type NodeOptions, node, pool } from '../../../testkit/disruption';
import {
  apply,
  deployment,
  disrupted,
  MINUTE,
  NO_VIOLATIONS,
  nodeClass,
  nodeCondition,
  nodePool,
  patchPool,
  run,
  scenario,
  step,
} from '../../../testkit/karpenter';

const ZONE_B = { 'topology.kubernetes.io/zone': 'us-east-1b' };

/** A deployment whose pods must run in one zone. */
function inZone(name: string, replicas: number, zone: string): Record<string, unknown> {
  const d = deployment(name, replicas, { cpu: '1' }) as { spec: { template: { spec: Record<string, unknown> } } };
  d.spec.template.spec.nodeSelector = { 'topology.kubernetes.io/zone': zone };
  return d as unknown as Record<string, unknown>;
}

/** Three m5.large nodes in us-east-1a and one in us-east-1b (one pod each), all drifted at 6m under `nodes: 2`. */
async function driftFour(sick: 'False' | 'Unknown' | undefined) {
  return run(
    scenario(8 * MINUTE, [
      step(
        0,
        apply(
          nodePool({
            types: ['m5.large'],
            zones: ['us-east-1a', 'us-east-1b'],
            consolidateAfter: 'Never',
            budgets: [{ nodes: '2' }],
          }),
          nodeClass(),
          inZone('web', 3, 'us-east-1a'),
          inZone('side', 1, 'us-east-1b'),
        ),
      ),
      ...(sick ? [step(4 * MINUTE, nodeCondition(ZONE_B, sick))] : []),
      step(6 * MINUTE, patchPool({ template: { metadata: { labels: { release: 'v2' } } } })),
    ]),
  );
}

/** The claims the first drift sweep took. */
const firstWave = (r: Awaited<ReturnType<typeof driftFour>>) => {
  const drifted = disrupted(r, 'Drifted');
  return drifted.filter((e) => e.at === drifted[0]?.at);
};

describe('suite_test.go BuildDisruptionBudgetMapping', () => {
  it('should consider not ready nodes to the disruption count', async () => {
    const r = await driftFour('False');
    // nodes: 2, one node NotReady: one slot left.
    expect(firstWave(r)).toHaveLength(1);
    expect(r.violations).toEqual(NO_VIOLATIONS);
  });

  it('should consider not ready nodes to the disruption count (Ready Unknown counts too)', async () => {
    const r = await driftFour('Unknown');
    expect(firstWave(r)).toHaveLength(1);
  });

  it('should consider not ready nodes to the disruption count (control: all Ready, both slots used)', async () => {
    const r = await driftFour(undefined);
    expect(firstWave(r)).toHaveLength(2);
  });
});

/** The sweep's budget mapping for ten nodes of pool `default` (budget `nodes`), some changed by `tweak`. */
function budgetWith(nodes: string, tweak: (i: number) => NodeOptions & { notReady?: boolean } = () => ({})): number {
  const p = pool({ budgets: [{ nodes }] });
  const list = Array.from({ length: 10 }, (_, i) => {
    const { notReady, ...o } = tweak(i);
    const n = node(`n${i}`, { pool: p, cpus: ['1'], ...o });
    return notReady ? { ...n, notReady } : n;
  });
  return new Sweep(disruptionInput(list, { nodePools: [p] })).budgetLeft('default', 'Drifted');
}

describe('suite_test.go BuildDisruptionBudgetMapping (the mapping itself)', () => {
  it('should not consider nodes that are not initialized as part of disruption count', () => {
    // An eleventh node still launching: 100% of the ten initialized ones.
    const p = pool({ budgets: [{ nodes: '100%' }] });
    const list = Array.from({ length: 10 }, (_, i) => node(`n${i}`, { pool: p }));
    const launching = node('n10', { pool: p, state: 'Launched' });
    const sweep = new Sweep(disruptionInput([...list, { ...launching, node: { ...launching.node, inflight: true } }]));
    expect(sweep.budgetLeft('default', 'Drifted')).toBe(10);
  });

  it('should not return a negative disruption value', () => {
    expect(budgetWith('10%', () => ({ markedForDeletion: true }))).toBe(0);
  });

  it('should consider nodes with a deletion timestamp set and MarkedForDeletion to the disruption count', () => {
    expect(
      budgetWith('100%', (i) => (i === 0 ? { state: 'Draining' } : i === 1 ? { markedForDeletion: true } : {})),
    ).toBe(8);
  });

  it('should consider not ready nodes to the disruption count (the mapping)', () => {
    expect(budgetWith('100%', (i) => (i < 2 ? { notReady: true } : {}))).toBe(8);
  });
});
