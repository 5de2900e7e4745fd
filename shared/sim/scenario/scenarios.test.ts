// End-to-end scenarios on the simulator with the real control plane and disruption sweep: what consolidation,
// drift and interruption do over time, and that the independent observer never sees a PDB, do-not-disrupt or budget
// violation.
import { describe, expect, it } from 'vitest';
import {
  apply,
  deployment,
  HOUR,
  MINUTE,
  nodeClass,
  nodePool,
  pdb,
  run,
  scale,
  scenario,
  step,
} from '../../../testkit/scenario';
import { parseDuration } from '../../api/quantity';
import { loadScenario } from './parse';
import type { TimelineEntry } from './recorder';
import { buildScenarioReport } from './report';

const NONE = { pdb: 0, doNotDisrupt: 0, budget: 0 };
const at = (e: TimelineEntry): number => parseDuration(e.at);
const of = (timeline: TimelineEntry[], type: string) => timeline.filter((e) => e.type === type);

describe('scenarios', () => {
  it('removes empty nodes once consolidateAfter has passed, not before, one budget at a time', async () => {
    const r = await run(
      scenario(30 * MINUTE, [
        step(
          0,
          apply(
            nodePool({ consolidateAfter: '5m', budgets: [{ nodes: '1' }], types: ['m5.large'] }),
            nodeClass(),
            deployment('web', 6, { cpu: '1' }),
          ),
        ),
        step(10 * MINUTE, scale('web', 0)),
      ]),
    );
    const launched = of(r.timeline, 'Launched');
    expect(launched.length).toBe(6);
    const disrupting = of(r.timeline, 'Disrupting');
    expect(disrupting.length).toBe(6);
    expect(disrupting.every((e) => e.reason === 'Empty')).toBe(true);
    // The last pod left at 10m; consolidateAfter 5m.
    expect(Math.min(...disrupting.map(at))).toBeGreaterThanOrEqual(15 * MINUTE);
    // Budget nodes: 1 — never two at the same instant.
    expect(new Set(disrupting.map((e) => e.at)).size).toBe(6);
    expect(await r.world.cloud.list()).toEqual([]);
    expect(r.violations).toEqual(NONE);
  });

  it('replaces drifted nodes after a NodePool patch, each replacement first, and ends with no drift', async () => {
    const r = await run(
      scenario(25 * MINUTE, [
        step(0, apply(nodePool({ consolidateAfter: '10m', types: ['m5.xlarge'] }), nodeClass(), deployment('web', 6))),
        step(5 * MINUTE, {
          type: 'patch',
          target: { kind: 'NodePool', namespace: '', name: 'general' },
          mergePatch: { spec: { template: { metadata: { labels: { release: 'v2' } } } } },
        }),
      ]),
    );
    const drifted = of(r.timeline, 'Disrupting').filter((e) => e.reason === 'Drifted');
    expect(drifted.length).toBeGreaterThan(0);
    const replacements = of(r.timeline, 'Launched').filter((e) => e.reason === 'Replacement (Drifted)');
    expect(replacements.length).toBe(drifted.length);
    // Every replacement initialized before the node it replaces started draining.
    const firstInit = Math.min(
      ...of(r.timeline, 'Initialized')
        .filter((e) => replacements.some((x) => x.nodeClaim === e.nodeClaim))
        .map(at),
    );
    expect(firstInit).toBeLessThanOrEqual(Math.min(...drifted.map(at)));
    const nodes = await r.world.cluster.listNodes();
    expect(nodes.length).toBeGreaterThan(0);
    expect(nodes.every((n) => n.metadata.labels?.release === 'v2')).toBe(true);
    expect(await r.world.cluster.listPendingPods()).toEqual([]);
    expect(r.violations).toEqual(NONE);
  });

  it('replaces spot nodes on an interruption warning and leaves no pod pending', async () => {
    const pool = nodePool({
      capacityTypes: ['spot'],
      types: ['m5.xlarge', 'm5a.xlarge', 'm6i.xlarge'],
      zones: ['us-east-1a', 'us-east-1b'],
    });
    const warnings = ['m5.xlarge', 'm5a.xlarge', 'm6i.xlarge'].flatMap((instanceType) =>
      ['us-east-1a', 'us-east-1b'].map((zone) =>
        step(10 * MINUTE, { type: 'interrupt', instanceType, zone, capacityType: 'spot' } as const),
      ),
    );
    const r = await run(scenario(25 * MINUTE, [step(0, apply(pool, nodeClass(), deployment('web', 6))), ...warnings]));
    const interrupted = of(r.timeline, 'Interrupted');
    expect(interrupted.length).toBeGreaterThan(0);
    expect(interrupted.every((e) => e.at === '10m')).toBe(true);
    const later = of(r.timeline, 'Launched').filter((e) => at(e) >= 10 * MINUTE);
    expect(later.length).toBeGreaterThan(0);
    const claims = await r.world.store.list({ states: ['Initialized'] });
    expect(claims.every((c) => c.capacityType === 'spot')).toBe(true);
    expect(claims.every((c) => !interrupted.some((e) => e.nodeClaim === c.name))).toBe(true);
    expect(await r.world.cluster.listPendingPods()).toEqual([]);
    expect(r.violations).toEqual(NONE);
  });

  it('keeps PDBs and do-not-disrupt pods whole through a scale-down', async () => {
    const r = await run(
      scenario(40 * MINUTE, [
        step(
          0,
          apply(
            nodePool({ consolidateAfter: '1m', types: ['m5.large', 'm5.xlarge'] }),
            nodeClass(),
            deployment('web', 16),
            pdb('web', 'web', { maxUnavailable: '50%' }),
            deployment('api', 4, { cpu: '250m' }),
            pdb('api', 'api', { minAvailable: 3 }),
            deployment('keep', 1, { cpu: '250m', annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }),
          ),
        ),
        step(10 * MINUTE, scale('web', 2)),
      ]),
    );
    const keep = r.world.cluster.allPods().find((p) => p.metadata.name === 'keep-0');
    // Never evicted: the pod bound at the start is still the same pod.
    expect(keep?.spec.nodeName).toBeDefined();
    expect(r.totals.podEvictions).toBeGreaterThan(0);
    const report = await buildScenarioReport(r);
    expect(report.violations).toEqual(NONE);
    expect(report.violationDetails).toEqual([]);
    expect(report.unschedulable).toEqual([]);
  });

  it('splits the oversized node a scale-down leaves, once, and ends near the LP bound (the example)', async () => {
    const r = await run(await loadScenario('examples/scenarios/scale-down.yaml'));
    const report = await buildScenarioReport(r);
    // One command launches both replacements at once; the node they replace was the only one left.
    const replacements = report.timeline.filter((e) => e.type === 'Launched' && e.reason.startsWith('Replacement'));
    expect(replacements).toHaveLength(2);
    expect(new Set(replacements.map((e) => e.at)).size).toBe(1);
    expect(report.summary.nodeClaims).toBe(2);
    expect(report.summary.costPerHour).toBeLessThanOrEqual(report.summary.lowerBoundPerHour * 1.15);
    expect(report.summary.scheduledPods).toBe(report.summary.pods);
    expect(report.violations).toEqual(NONE);
  });

  it('is deterministic: the same seed gives the same report, another seed other instance ids', async () => {
    const s = scenario(15 * MINUTE, [
      step(0, apply(nodePool({ consolidateAfter: '1m' }), nodeClass(), deployment('web', 8))),
      step(5 * MINUTE, scale('web', 3)),
    ]);
    const a = JSON.stringify(await buildScenarioReport(await run(s, { seed: 5 })));
    const b = JSON.stringify(await buildScenarioReport(await run(s, { seed: 5 })));
    const c = JSON.stringify(await buildScenarioReport(await run(s, { seed: 6 })));
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });
});

describe('churn', () => {
  it('a steady workload sees zero disruptions over 24 hours once it has settled', async () => {
    const r = await run(
      scenario(
        24 * HOUR,
        [
          step(
            0,
            apply(
              nodePool({ consolidateAfter: '5m' }),
              nodeClass(),
              deployment('web', 10),
              deployment('api', 3, { cpu: '1500m' }),
            ),
          ),
        ],
        {
          sweepEvery: 10 * MINUTE,
        },
      ),
    );
    const settled = HOUR;
    expect(r.disruptionTimes.filter((d) => d.at >= settled)).toEqual([]);
    expect(of(r.timeline, 'Launched').filter((e) => at(e) >= settled)).toEqual([]);
    expect(await r.world.cluster.listPendingPods()).toEqual([]);
    expect(r.violations).toEqual(NONE);
  });

  it('a diurnal workload never replaces a node more than once per cycle', async () => {
    const cycle = 4 * HOUR;
    const r = await run(
      scenario(
        3 * cycle,
        [
          step(
            0,
            apply(
              nodePool({
                consolidateAfter: '5m',
                types: ['m5.large', 'm5.xlarge', 'm5.2xlarge', 'm5.4xlarge', 'c5.xlarge', 'c5.2xlarge'],
              }),
              nodeClass(),
              deployment('web', 4),
            ),
          ),
          step(HOUR, scale('web', 24), cycle),
          step(3 * HOUR, scale('web', 4), cycle),
        ],
        { sweepEvery: 2 * MINUTE },
      ),
    );
    const replacements = of(r.timeline, 'Launched').filter((e) => e.reason.startsWith('Replacement'));
    for (let c = 0; c < 3; c++) {
      const inCycle = (e: TimelineEntry) => at(e) >= c * cycle && at(e) < (c + 1) * cycle;
      expect(replacements.filter(inCycle).length).toBeLessThanOrEqual(1);
      // A replacement is never itself disrupted in the cycle that launched it.
      const launchedNow = new Set(replacements.filter(inCycle).map((e) => e.nodeClaim));
      expect(of(r.timeline, 'Disrupting').filter((e) => inCycle(e) && launchedNow.has(e.nodeClaim))).toEqual([]);
    }
    // Capacity did follow the load down each night.
    expect(r.totals.disruptions).toBeGreaterThanOrEqual(3);
    expect(r.violations).toEqual(NONE);
  });
});
