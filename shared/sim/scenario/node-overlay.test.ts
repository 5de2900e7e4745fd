// A NodeOverlay over time in a scenario (examples/scenarios/node-overlay.yaml; docs/api.md, NodeOverlay): created at
// 10 minutes it makes a cheaper replacement exist, so consolidation takes it; deleted at 25 minutes it takes that
// saving away, so consolidation goes back. The candidate is priced as the pool's types price it now (Karpenter's
// resolveNodePrice) and the replacement launches at the price the plan saw.
import { describe, expect, it } from 'vitest';
import { run, scenarioProblems } from '../../../testkit/scenario';
import type { DecisionRecord } from '../../api/nodeclaim';
import { loadScenario } from './parse';
import type { ScenarioRun } from './runner';
import type { Scenario } from './types';

const FILE = 'examples/scenarios/node-overlay.yaml';

/** What was launched, when, at what price; and when each node went for a cheaper one. */
function story(r: ScenarioRun): string[] {
  return r.timeline
    .filter((e) => e.type === 'Launched' || e.type === 'Disrupting')
    .map((e) => (e.type === 'Launched' ? `${e.at} launch ${e.detail.split(',')[0]}` : `${e.at} ${e.reason}`));
}

async function disruptRecords(r: ScenarioRun): Promise<DecisionRecord[]> {
  const claims = await r.world.store.list();
  const records = (await Promise.all(claims.map((c) => r.world.store.listDecisions(c.name)))).flat();
  const byId = new Map(records.filter((d) => d.kind === 'Disrupt').map((d) => [d.id, d]));
  return [...byId.values()].sort((a, b) => a.at.localeCompare(b.at));
}

/** The scenario with only the steps before `at`. */
const until = (s: Scenario, at: number): Scenario => ({ ...s, steps: s.steps.filter((x) => x.at < at) });

describe('a NodeOverlay created and deleted during a scenario', () => {
  it('makes consolidation replace the node while it prices the other type lower, and go back once it is deleted', async () => {
    const r = await run(await loadScenario(FILE));
    expect(r.warnings).toEqual([]);
    expect(story(r)).toEqual([
      '1s launch c5.large on-demand us-east-1a $0.085/h',
      '10m15s launch m5.large on-demand us-east-1a $0.04/h',
      '11m Underutilized',
      '25m15s launch c5.large on-demand us-east-1a $0.085/h',
      '26m Underutilized',
    ]);
    const [toM5, back] = await disruptRecords(r);
    const overlay = { name: 'm5-savings-plan', weight: 0, adjustment: 'price: 0.04', basePrice: 0.096 };
    expect(toM5?.detail).toMatchObject({
      chosen: [{ price: 0.085 }],
      replacements: [{ instanceType: 'm5.large', pricePerHour: 0.04, overlay }],
      savingPerHour: 0.045,
    });
    // The overlay is gone: the m5.large is priced at its catalog price again, and no overlay priced anything.
    expect(back?.detail).toMatchObject({
      chosen: [{ price: 0.096 }],
      replacements: [{ instanceType: 'c5.large', pricePerHour: 0.085 }],
      savingPerHour: 0.011,
    });
    expect(JSON.stringify(back?.detail)).not.toContain('m5-savings-plan');
    expect(r.violations).toMatchObject({ pdb: 0, doNotDisrupt: 0, budget: 0 });
  }, 120_000);

  it('keeps the overlaid replacement while the overlay stays: one replacement, launched at the overlaid price', async () => {
    const r = await run(until(await loadScenario(FILE), 25 * 60_000));
    expect(story(r)).toEqual([
      '1s launch c5.large on-demand us-east-1a $0.085/h',
      '10m15s launch m5.large on-demand us-east-1a $0.04/h',
      '11m Underutilized',
    ]);
    const live = await r.world.store.list({ states: ['Initialized'] });
    expect(live.map((c) => [c.instanceType, c.pricePerHour])).toEqual([['m5.large', 0.04]]);
  }, 120_000);

  it('replaces nothing without the overlay', async () => {
    const r = await run(until(await loadScenario(FILE), 10 * 60_000));
    expect(story(r)).toEqual(['1s launch c5.large on-demand us-east-1a $0.085/h']);
    expect(await disruptRecords(r)).toEqual([]);
  }, 120_000);

  it('refuses a namespace on a NodeOverlay to delete, and names the step', async () => {
    const text = `apiVersion: karpless.dev/v1alpha1
kind: Scenario
metadata: { name: bad }
spec:
  until: 5m
  steps:
    - at: 1m
      delete: { kind: NodeOverlay, namespace: default, name: m5-savings-plan }
`;
    expect(await scenarioProblems(text)).toEqual([
      expect.stringMatching(/spec\.steps\[0\]\.delete\.namespace.*NodeOverlay is not namespaced/),
    ]);
  });
});
