// kubernetes-sigs/karpenter pkg/controllers/disruption/emptiness_test.go (and the emptiness cases of
// suite_test.go), on the scenario runner: nodes emptied by a scale-down, Node annotations and pod completions set by
// the scenario's steps.
import { describe, expect, it } from 'vitest';
import { DISRUPTION_SETTINGS_DEFAULTS } from '../../../shared/disruption/settings';
import {
  annotate,
  apply,
  complete,
  deployment,
  disrupted,
  forEachNode,
  HOUR,
  liveClaims,
  MINUTE,
  NO_VIOLATIONS,
  nodeClass,
  nodePool,
  offset,
  type PoolOptions,
  patchPool,
  run,
  scale,
  scenario,
  seed,
  seededNode,
  step,
  unconsolidatable,
} from '../../../testkit/karpenter';

const POOL = { 'karpenter.sh/nodepool': 'general' };

/** `n` m5.large nodes, one 1-cpu pod each, emptied at 5m; `extra` steps at 4m. */
async function emptied(n: number, pool: PoolOptions = {}, extra: Parameters<typeof step>[1][] = [], until = 20) {
  return run(
    scenario(until * MINUTE, [
      step(
        0,
        apply(
          nodePool({ types: ['m5.large'], consolidateAfter: '1m', ...pool }),
          nodeClass(),
          deployment('web', n, { cpu: '1' }),
        ),
      ),
      ...extra.map((a) => step(4 * MINUTE, a)),
      step(5 * MINUTE, scale('web', 0)),
    ]),
  );
}

describe('emptiness_test.go', () => {
  it('Emptiness: can delete multiple empty nodes', async () => {
    const r = await emptied(3);
    expect(disrupted(r, 'Empty')).toHaveLength(3);
    expect(await liveClaims(r)).toEqual([]);
    expect(r.violations).toEqual(NO_VIOLATIONS);
  });

  it('Emptiness: should ignore nodes with the karpenter.sh/do-not-disrupt annotation (on the Node)', async () => {
    const r = await emptied(2, {}, [
      annotate({ kind: 'Node', selector: POOL }, { 'karpenter.sh/do-not-disrupt': 'true' }),
    ]);
    expect(disrupted(r)).toEqual([]);
    expect(await liveClaims(r)).toHaveLength(2);
  });

  it('Emptiness: should delete nodes with the karpenter.sh/do-not-disrupt annotation set to false', async () => {
    const r = await emptied(2, {}, [
      annotate({ kind: 'Node', selector: POOL }, { 'karpenter.sh/do-not-disrupt': 'false' }),
    ]);
    expect(disrupted(r, 'Empty')).toHaveLength(2);
  });

  it('Emptiness: should ignore nodes that have pods', async () => {
    const r = await run(
      scenario(15 * MINUTE, [
        step(
          0,
          apply(
            nodePool({ types: ['m5.large'], consolidateAfter: '1m' }),
            nodeClass(),
            deployment('web', 2, { cpu: '1' }),
          ),
        ),
      ]),
    );
    expect(disrupted(r)).toEqual([]);
  });

  it('should wait for the node TTL for empty nodes before consolidating', async () => {
    // As upstream: one empty node; the command waits out the validation delay (5m here, so the one-minute sweeps
    // see it) before the node goes, and then nothing is left.
    const r = await run(
      scenario(
        12 * MINUTE,
        [
          step(0, apply(nodePool({ types: ['m5.large'], consolidateAfter: '0s' }), nodeClass())),
          step(0, seed(seededNode('a', { age: HOUR }))),
        ],
        { settings: { ...DISRUPTION_SETTINGS_DEFAULTS, consolidationValidationDelayMs: 5 * MINUTE } },
      ),
    );
    const empties = disrupted(r, 'Empty');
    expect(empties).toHaveLength(1);
    expect(offset(empties[0] as never)).toBeGreaterThanOrEqual(5 * MINUTE);
    expect(await liveClaims(r)).toEqual([]);
  });

  it("consolidation_test.go Events: should fire an event for ConsolidationDisabled when the NodePool has consolidateAfter set to 'Never' (nothing is deleted)", async () => {
    const r = await emptied(2, { consolidateAfter: 'Never' });
    expect(disrupted(r)).toEqual([]);
    expect(unconsolidatable(r)).toHaveLength(4);
    expect(unconsolidatable(r)).toEqual(await forEachNode(r, 'NodePool "general" has consolidation disabled'));
  });

  it('suite_test.go: should consider candidates that have do-not-disrupt terminal pods', async () => {
    const r = await run(
      scenario(15 * MINUTE, [
        step(
          0,
          apply(
            nodePool({ types: ['m5.large'], consolidateAfter: '1m' }),
            nodeClass(),
            deployment('batch', 1, { cpu: '1', annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }),
          ),
        ),
        step(4 * MINUTE, complete({ app: 'batch' }, 'Succeeded')),
      ]),
    );
    expect(disrupted(r, 'Empty')).toHaveLength(1);
  });

  it('suite_test.go: should not consider candidates that have do-not-disrupt pods scheduled and no terminationGracePeriod (running pod, emptiness untouched)', async () => {
    const r = await run(
      scenario(15 * MINUTE, [
        step(
          0,
          apply(
            nodePool({ types: ['m5.large'], consolidateAfter: '1m' }),
            nodeClass(),
            deployment('batch', 1, { cpu: '1', annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }),
          ),
        ),
      ]),
    );
    expect(disrupted(r)).toEqual([]);
  });
});

describe('emptiness_test.go Budgets', () => {
  it('should allow all empty nodes to be disrupted (nodes: 100%)', async () => {
    const r = await emptied(4, { budgets: [{ nodes: '100%' }] });
    const empties = disrupted(r, 'Empty');
    expect(empties).toHaveLength(4);
    expect(new Set(empties.map((e) => e.at)).size).toBe(1);
  });

  it('should allow no empty nodes to be disrupted (nodes: 0)', async () => {
    const r = await emptied(3, { budgets: [{ nodes: '0' }] });
    expect(disrupted(r)).toEqual([]);
    expect(await liveClaims(r)).toHaveLength(3);
  });

  it('should only allow 3 empty nodes to be disrupted (nodes: 3 of 5, at one time)', async () => {
    const r = await emptied(5, { budgets: [{ nodes: '3' }] });
    const empties = disrupted(r, 'Empty');
    const first = empties.filter((e) => e.at === empties[0]?.at);
    expect(first).toHaveLength(3);
    expect(r.violations).toEqual(NO_VIOLATIONS);
  });

  it('budgets.md: a budget for another reason does not hold back emptiness (nodes: 0 for Drifted)', async () => {
    const r = await emptied(2, { budgets: [{ nodes: '0', reasons: ['Drifted'] }] });
    expect(disrupted(r, 'Empty')).toHaveLength(2);
  });

  it('budgets.md: a budget for Empty holds emptiness (nodes: 0 for Empty), until the NodePool is patched to allow it', async () => {
    const r = await run(
      scenario(25 * MINUTE, [
        step(
          0,
          apply(
            nodePool({ types: ['m5.large'], consolidateAfter: '1m', budgets: [{ nodes: '0', reasons: ['Empty'] }] }),
            nodeClass(),
            deployment('web', 2, { cpu: '1' }),
          ),
        ),
        step(5 * MINUTE, scale('web', 0)),
        step(15 * MINUTE, patchPool({ disruption: { budgets: [{ nodes: '1' }] } })),
      ]),
    );
    const empties = disrupted(r, 'Empty');
    expect(empties).toHaveLength(2);
    expect(Math.min(...empties.map(offset))).toBeGreaterThanOrEqual(15 * MINUTE);
  });
});
