// kubernetes-sigs/karpenter pkg/controllers/disruption/staticdrift_test.go, case by case, and drift_test.go's static
// case, on the scenario runner: a static NodePool's template changes (a patch step), so its nodes drift, and the
// sweep replaces them within the pool's budgets, its limits.nodes, and only once a scale-down has finished.
// Karpenter's test makes nodes and marks them Drifted by hand; here the pool launches them and a patch drifts them.
import { describe, expect, it } from 'vitest';
import type { StepAction } from '../../../shared/sim/scenario/types';
import {
  annotate,
  apply,
  deployment,
  disrupted,
  keepReasons,
  liveClaims,
  MINUTE,
  nodeClass,
  nodePool,
  offset,
  patchPool,
  run,
  scenario,
  staticPool,
  step,
} from '../../../testkit/karpenter';

/** The pool with a NoSchedule taint, so the test's pods go to another pool. */
function tainted(pool: Record<string, unknown>): Record<string, unknown> {
  const spec = pool.spec as { template: { spec: Record<string, unknown> } };
  const template = {
    ...spec.template,
    spec: { ...spec.template.spec, taints: [{ key: 'static', effect: 'NoSchedule' }] },
  };
  return { ...pool, spec: { ...spec, template } };
}

/** Changes the pool's template: every node it launched so far drifts. */
const drift = (pool = 'static'): StepAction => patchPool({ template: { metadata: { labels: { v: '2' } } } }, pool);
const DRIFT_AT = 5 * MINUTE;

async function drifted(pools: Record<string, unknown>[], extra: { at: number; action: StepAction }[] = [], until = 30) {
  const names = pools.map((p) => (p.metadata as { name: string }).name);
  return run(
    scenario(until * MINUTE, [
      step(0, apply(nodeClass(), ...pools)),
      ...extra.map((e) => step(e.at, e.action)),
      ...names.map((n) => step(DRIFT_AT, drift(n))),
    ]),
  );
}

/** Drift disruptions per sweep instant, for one pool. */
function perSweep(r: Awaited<ReturnType<typeof drifted>>, pool = 'static'): number[] {
  const at = new Map<number, number>();
  for (const e of disrupted(r, 'Drifted').filter((x) => x.nodeClaim?.startsWith(`${pool}-`))) {
    at.set(offset(e), (at.get(offset(e)) ?? 0) + 1);
  }
  return [...at.entries()].sort((a, b) => a[0] - b[0]).map(([, n]) => n);
}

async function versions(r: Awaited<ReturnType<typeof drifted>>, pool = 'static'): Promise<(string | undefined)[]> {
  return (await liveClaims(r)).filter((c) => c.nodePool === pool && c.state !== 'Draining').map((c) => c.labels.v);
}

describe('staticdrift_test.go', () => {
  describe('Budgets', () => {
    it('should respect disruption budgets (Nodes Count) for static drift', async () => {
      const r = await drifted([staticPool(5, { budgets: [{ nodes: '2', reasons: ['Drifted'] }] })]);
      expect(perSweep(r)[0]).toBe(2);
      expect(Math.max(...perSweep(r))).toBeLessThanOrEqual(2);
      expect(await versions(r)).toEqual(['2', '2', '2', '2', '2']);
    });
    it('should respect disruption budgets (Nodes Percentage) for static drift', async () => {
      const r = await drifted([staticPool(5, { budgets: [{ nodes: '20%', reasons: ['Drifted'] }] })]);
      expect(Math.max(...perSweep(r))).toBe(1);
      expect(await versions(r)).toEqual(['2', '2', '2', '2', '2']);
    });
    it('should respect budgets for multiple static nodepools', async () => {
      const r = await drifted([
        staticPool(4, { name: 'static-a', budgets: [{ nodes: '1' }] }),
        staticPool(4, { name: 'static-b', budgets: [{ nodes: '2' }] }),
      ]);
      expect(Math.max(...perSweep(r, 'static-a'))).toBe(1);
      expect(Math.max(...perSweep(r, 'static-b'))).toBe(2);
      expect(await versions(r, 'static-a')).toEqual(['2', '2', '2', '2']);
      expect(await versions(r, 'static-b')).toEqual(['2', '2', '2', '2']);
    });
  });

  describe('Limits and Scaling', () => {
    it('should not drift nodes when we cannot acquire limits', async () => {
      const r = await drifted([staticPool(3, { limits: { nodes: '3' } })]);
      expect(disrupted(r, 'Drifted')).toEqual([]);
      expect(await versions(r)).toEqual([undefined, undefined, undefined]);
      const [first] = await liveClaims(r);
      expect(await keepReasons(r, first?.name ?? '')).toContainEqual(
        expect.stringContaining('static NodePool static is at limits.nodes 3, no room for a replacement'),
      );
    });
    it('should drift nodes when we can acquire limits', async () => {
      const r = await drifted([staticPool(3, { limits: { nodes: '5' } })]);
      expect(perSweep(r)[0]).toBe(2);
      expect(await versions(r)).toEqual(['2', '2', '2']);
    });
    it('should drift partially when we can acquire some limits', async () => {
      const r = await drifted([staticPool(3, { limits: { nodes: '4' } })]);
      expect(perSweep(r)[0]).toBe(1);
    });
    it('should keep drifting partially when we can acquire some limits for each reconcile', async () => {
      const r = await drifted([staticPool(3, { limits: { nodes: '4' } })]);
      expect(perSweep(r)).toEqual([1, 1, 1]);
      expect(await versions(r)).toEqual(['2', '2', '2']);
      // Never more than limits.nodes claims alive at once.
      expect(r.timeline.filter((e) => e.type === 'Launched').length).toBe(6);
    });
    it('should wait until nodes are deprovisioned when we are overscaled', async () => {
      // Replicas drop to 1 and the template changes at the same step: the surplus goes first, then the one left drifts.
      const r = await run(
        scenario(30 * MINUTE, [
          step(0, apply(nodeClass(), staticPool(2))),
          step(DRIFT_AT, patchPool({ replicas: 1, template: { metadata: { labels: { v: '2' } } } }, 'static')),
        ]),
      );
      const scaledDown = r.timeline.filter((e) => e.type === 'Disrupting' && e.reason !== 'Drifted');
      const drifts = disrupted(r, 'Drifted');
      expect(scaledDown).toHaveLength(1);
      expect(drifts).toHaveLength(1);
      expect(offset(drifts[0] as (typeof drifts)[0])).toBeGreaterThanOrEqual(
        offset(scaledDown[0] as (typeof drifts)[0]),
      );
      expect(await versions(r)).toEqual(['2']);
    });
  });

  describe('Multiple NodePools', () => {
    it('should handle drift for multiple static NodePools independently', async () => {
      const r = await drifted([
        staticPool(2, { name: 'static-a', limits: { nodes: '2' } }),
        staticPool(2, { name: 'static-b', limits: { nodes: '4' } }),
      ]);
      expect(perSweep(r, 'static-a')).toEqual([]);
      expect(perSweep(r, 'static-b')[0]).toBe(2);
      expect(await versions(r, 'static-b')).toEqual(['2', '2']);
    });
  });

  describe('Edge Cases', () => {
    it('should handle zero replicas', async () => {
      const r = await drifted([staticPool(0)]);
      expect(disrupted(r)).toEqual([]);
      expect(await liveClaims(r)).toEqual([]);
    });
    it('should handle missing node limits gracefully', async () => {
      const r = await drifted([staticPool(3)]);
      expect(await versions(r)).toEqual(['2', '2', '2']);
    });
    it('should ignore nodes without the drifted status condition', async () => {
      // Nothing changes the template: no node drifts, none is replaced.
      const r = await run(scenario(30 * MINUTE, [step(0, apply(nodeClass(), staticPool(3)))]));
      expect(disrupted(r)).toEqual([]);
      expect(r.timeline.filter((e) => e.type === 'Launched')).toHaveLength(3);
    });
    it('should ignore nodes with the drifted status condition set to false', async () => {
      // A template change that the nodes already satisfy (a widened requirement) leaves Drifted false.
      const r = await run(
        scenario(30 * MINUTE, [
          step(0, apply(nodeClass(), staticPool(3))),
          step(
            DRIFT_AT,
            patchPool(
              {
                template: {
                  spec: {
                    requirements: [
                      { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large', 'm5.xlarge'] },
                    ],
                  },
                },
              },
              'static',
            ),
          ),
        ]),
      );
      expect(disrupted(r)).toEqual([]);
    });
    it('should ignore nodes with the karpenter.sh/do-not-disrupt annotation', async () => {
      const r = await drifted(
        [staticPool(3)],
        [
          {
            at: 4 * MINUTE,
            action: annotate(
              { kind: 'Node', selector: { 'karpenter.sh/nodepool': 'static' } },
              { 'karpenter.sh/do-not-disrupt': 'true' },
            ),
          },
        ],
      );
      expect(disrupted(r)).toEqual([]);
      expect(await versions(r)).toEqual([undefined, undefined, undefined]);
    });
  });
});

describe('drift_test.go', () => {
  it('should not consider static nodepool for drift', async () => {
    // Karpenter's Drift method leaves static pools to StaticDrift; Karpless has one drift method, which applies the
    // static rules to a static pool's nodes: the dynamic pool's drifted nodes are replaced, the static pool's at its
    // limit are not.
    const dynamic = nodePool({ name: 'dynamic', types: ['m5.large'], budgets: [{ nodes: '100%' }] });
    const r = await run(
      scenario(30 * MINUTE, [
        step(
          0,
          apply(
            nodeClass(),
            tainted(staticPool(2, { limits: { nodes: '2' } })),
            dynamic,
            deployment('web', 2, { cpu: '1500m' }),
          ),
        ),
        step(DRIFT_AT, drift('static')),
        step(DRIFT_AT, drift('dynamic')),
      ]),
    );
    expect(perSweep(r, 'static')).toEqual([]);
    expect(perSweep(r, 'dynamic').length).toBeGreaterThan(0);
    expect(await versions(r, 'dynamic')).toEqual(['2', '2']);
  });
});
