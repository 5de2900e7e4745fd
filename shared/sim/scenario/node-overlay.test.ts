// A NodeOverlay over time in a scenario (examples/scenarios/node-overlay.yaml; docs/api.md, NodeOverlay): created at
// 10 minutes it makes a cheaper replacement exist, so consolidation takes it; deleted at 25 minutes it takes that
// saving away, so consolidation goes back. The candidate is priced as the pool's types price it now (Karpenter's
// resolveNodePrice) and the replacement launches at the price the plan saw.
import { describe, expect, it } from 'vitest';
import {
  apply,
  deployment,
  MINUTE,
  nodeClass,
  nodePool,
  run,
  scenario,
  scenarioProblems,
  step,
} from '../../../testkit/scenario';
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

/** A Deployment of one pod asking for an extended resource no catalog type has. */
const fuseDeployment = (): Record<string, unknown> => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'fuse', namespace: 'default' },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'fuse' } },
    template: {
      metadata: { labels: { app: 'fuse' } },
      spec: {
        containers: [
          {
            name: 'app',
            image: 'app',
            resources: { requests: { cpu: '500m', memory: '1Gi', 'example.com/fuse': '1' } },
          },
        ],
      },
    },
  },
});

const fuseOverlay = (): Record<string, unknown> => ({
  apiVersion: 'karpenter.sh/v1alpha1',
  kind: 'NodeOverlay',
  metadata: { name: 'fuse' },
  spec: {
    requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large'] }],
    capacity: { 'example.com/fuse': '1' },
  },
});

const launches = (r: ScenarioRun): string[] =>
  r.timeline.filter((e) => e.type === 'Launched').map((e) => `${e.at} ${e.detail.split(' ')[0]}`);

// The forwarder watches NodePools, EC2NodeClasses and NodeOverlays and sends NodePoolChanged on a change, which
// plans the pending pods again at once (docs/api.md, NodeOverlay); the scenario runner delivers the same hint after
// the forwarder's batch window, so nothing waits for the next Sweep tick (here 30 minutes away).
describe('the forwarder hint on a NodeOverlay or NodePool change in a scenario', () => {
  it('plans a pending pod again as soon as a NodeOverlay gives a type the extended resource it asks for', async () => {
    const s = scenario(
      20 * MINUTE,
      [
        step(0, apply(nodePool({ types: ['m5.large'] }), nodeClass(), fuseDeployment())),
        step(5 * MINUTE, apply(fuseOverlay())),
      ],
      { sweepEvery: 30 * MINUTE },
    );
    const r = await run(s);
    expect(launches(r)).toEqual(['5m1s m5.large']);
    expect(r.timeline.some((e) => e.type === 'Unschedulable' && e.at === '1s')).toBe(true);
    expect(await r.world.cluster.listPendingPods()).toEqual([]);
  }, 120_000);

  it('plans a pending pod again as soon as a NodePool patch admits a type that fits it', async () => {
    const s = scenario(
      20 * MINUTE,
      [
        step(0, apply(nodePool({ types: ['m5.large'] }), nodeClass(), deployment('big', 1, { cpu: '6' }))),
        step(5 * MINUTE, {
          type: 'patch',
          target: { kind: 'NodePool', namespace: '', name: 'general' },
          mergePatch: {
            spec: {
              template: {
                spec: {
                  requirements: [
                    { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.2xlarge'] },
                    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
                    { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] },
                  ],
                },
              },
            },
          },
        }),
      ],
      { sweepEvery: 30 * MINUTE },
    );
    const r = await run(s);
    expect(launches(r)).toEqual(['5m1s m5.2xlarge']);
  }, 120_000);
});
