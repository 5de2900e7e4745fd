// kubernetes-sigs/karpenter pkg/controllers/disruption/consolidation_test.go, on the scenario runner.
import { describe, expect, it } from 'vitest';
import { DISRUPTION_SETTINGS_DEFAULTS } from '../../../shared/disruption/settings';
import {
  apply,
  deployment,
  disrupted,
  keepReasons,
  liveClaims,
  MINUTE,
  NO_VIOLATIONS,
  nodeClass,
  nodePool,
  replacementsFor,
  run,
  scale,
  scenario,
  step,
} from '../../../testkit/karpenter';

const spotPool = () => nodePool({ capacityTypes: ['spot'], consolidateAfter: '1m' });

/** One spot node sized for 3 pods of 2 cpu, left with one at 5m: a cheaper spot node would hold it. */
async function underusedSpotNode(spotToSpotConsolidation: boolean) {
  return run(
    scenario(
      20 * MINUTE,
      [step(0, apply(spotPool(), nodeClass(), deployment('web', 3, { cpu: '2' }))), step(5 * MINUTE, scale('web', 1))],
      { settings: { ...DISRUPTION_SETTINGS_DEFAULTS, spotToSpotConsolidation } },
    ),
  );
}

describe('consolidation_test.go', () => {
  it('Replace: cannot replace spot with spot if the spotToSpotConsolidation is disabled', async () => {
    const r = await underusedSpotNode(false);
    expect(disrupted(r)).toEqual([]);
    expect(replacementsFor(r, 'Underutilized')).toEqual([]);
    const [claim] = await liveClaims(r);
    expect(claim?.capacityType).toBe('spot');
    expect((await keepReasons(r, claim?.name ?? '')).join('\n')).toContain(
      "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node",
    );
  });

  it('Replace: cannot replace spot with spot if less than minimum InstanceTypes flexibility (the gate on, 4 types)', async () => {
    const r = await underusedSpotNode(true);
    expect(replacementsFor(r, 'Underutilized')).toEqual([]);
    const [claim] = await liveClaims(r);
    expect((await keepReasons(r, claim?.name ?? '')).join('\n')).toMatch(
      /spot-to-spot replacement needs at least 15 cheaper instance types, found \d/,
    );
  });

  it('Delete: can delete nodes (spot nodes are deleted whatever the gate)', async () => {
    const r = await run(
      scenario(20 * MINUTE, [
        step(
          0,
          apply(
            nodePool({ capacityTypes: ['spot'], consolidateAfter: '1m', types: ['m5.large'] }),
            nodeClass(),
            deployment('web', 3, { cpu: '1' }),
          ),
        ),
        step(5 * MINUTE, scale('web', 1)),
      ]),
    );
    expect(disrupted(r).length).toBe(2);
    expect(replacementsFor(r, 'Underutilized')).toEqual([]);
    expect(await liveClaims(r)).toHaveLength(1);
    expect(r.violations).toEqual(NO_VIOLATIONS);
  });
});
