import { describe, expect, it } from 'vitest';
import {
  apply,
  deployment,
  HOUR,
  MINUTE,
  nodeClass,
  nodePool,
  run,
  scale,
  scenario,
  step,
} from '../../../testkit/scenario';
import { buildScenarioReport } from './report';
import { runScenario } from './runner';

describe('runScenario', () => {
  it('provisions through the batching window, registers, initializes and binds every pod', async () => {
    const r = await run(scenario(5 * MINUTE, [step(0, apply(nodePool(), nodeClass(), deployment('web', 6)))]));
    const types = r.timeline.map((e) => e.type);
    expect(types).toContain('Launched');
    expect(types).toContain('Registered');
    expect(types).toContain('Initialized');
    expect(types).toContain('Bound');
    // The forwarder batch flushes 1 s after the pods appear; nodes are Ready 45 s after launch, when kube-scheduler
    // binds the nominated pods; the node change reaches the lifecycle after its own 1 s batch.
    expect(r.timeline.find((e) => e.type === 'Launched')?.at).toBe('1s');
    expect(r.timeline.find((e) => e.type === 'Bound')?.at).toBe('46s');
    expect(r.timeline.find((e) => e.type === 'Initialized')?.at).toBe('47s');
    expect(await r.world.cluster.listPendingPods()).toEqual([]);
    expect(r.totals.maxPendingSeconds).toBe(46);
    expect(r.violations).toEqual({ pdb: 0, doNotDisrupt: 0, budget: 0 });
  });

  it('scales a Deployment up and down: pods are added pending and removed for good', async () => {
    const r = await run(
      scenario(20 * MINUTE, [
        step(0, apply(nodePool(), nodeClass(), deployment('web', 2))),
        step(5 * MINUTE, scale('web', 5)),
        step(10 * MINUTE, scale('web', 1)),
      ]),
    );
    const pods = r.world.cluster.allPods().map((p) => p.metadata.name);
    expect(pods).toEqual(['web-0']);
    expect(r.timeline.filter((e) => e.type === 'Bound').length).toBeGreaterThanOrEqual(2);
  });

  it('without a sweep nothing is disrupted, and cost accrues for the nodes that ran', async () => {
    const s = scenario(HOUR, [
      step(0, apply(nodePool({ consolidateAfter: '0s' }), nodeClass(), deployment('web', 8))),
      step(10 * MINUTE, scale('web', 0)),
    ]);
    const idle = await runScenario(
      s,
      (await import('../default-engine')).catalogEngine((await import('../../catalog')).loadCatalog()),
      {
        seed: 1,
      },
    );
    expect(idle.totals.disruptions).toBe(0);
    const report = await buildScenarioReport(idle);
    expect(report.summary.nodeClaims).toBeGreaterThan(0);
    const hourly = report.summary.costPerHour;
    // The nodes ran from launch (1 s) to the end.
    expect(idle.totals.cost).toBeCloseTo(hourly * ((HOUR - 1000) / HOUR), 3);
  });
});

describe('runScenario steps', () => {
  it('deletes a workload with its pods and names an unknown target with the step path', async () => {
    const r = await run(
      scenario(5 * MINUTE, [
        step(0, apply(nodePool(), nodeClass(), deployment('web', 2), deployment('batch', 3))),
        step(2 * MINUTE, { type: 'delete', targets: [{ kind: 'Deployment', namespace: 'default', name: 'batch' }] }),
      ]),
    );
    expect(
      r.world.cluster
        .allPods()
        .map((p) => p.metadata.name)
        .sort(),
    ).toEqual(['web-0', 'web-1']);
    await expect(
      run(scenario(MINUTE, [step(0, apply(nodePool(), nodeClass())), step(10_000, scale('nope', 1))])),
    ).rejects.toThrow('test.yaml: spec.steps[@10000]: Deployment default/nope not found (apply it in an earlier step)');
  });
});
