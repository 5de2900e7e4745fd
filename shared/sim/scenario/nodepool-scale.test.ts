// A scenario's `scale: { kind: NodePool }` step, named after kubernetes-sigs/karpenter's static provisioning and
// deprovisioning suites (pkg/controllers/static/provisioning, pkg/controllers/static/deprovisioning): the step is
// `kubectl scale nodepool`, and the pool follows at once, bypassing disruption budgets and waiting on PDBs.
import { describe, expect, it } from 'vitest';
import {
  apply,
  deployment,
  MINUTE,
  nodeClass,
  nodePool,
  pdb,
  run,
  scenario,
  scenarioProblems,
  step,
} from '../../../testkit/scenario';
import { LIVE_STATES } from '../../api/nodeclaim';
import type { ScenarioRun } from './runner';
import type { StepAction } from './types';

/** A static NodePool of m5.large nodes whose budget allows no disruption at all. */
function staticPool(replicas: number, limits?: Record<string, string>): Record<string, unknown> {
  const p = nodePool({ name: 'static', types: ['m5.large'], budgets: [{ nodes: '0' }] });
  return { ...p, spec: { ...(p.spec as object), replicas, ...(limits ? { limits } : {}) } };
}

const scaleTo = (replicas: number): StepAction => ({ type: 'scaleNodePool', name: 'static', replicas });

async function liveNodes(r: ScenarioRun): Promise<string[]> {
  const claims = await r.world.store.list({ states: LIVE_STATES });
  return claims.filter((c) => c.state !== 'Draining').map((c) => c.nodeName ?? c.name);
}

/** Between two sweeps (every minute), so only the step itself can act at this instant. */
const HALF_PAST_5 = 5.5 * MINUTE;

const launchedAt = (r: ScenarioRun) => r.timeline.filter((e) => e.type === 'Launched').map((e) => e.at);

describe('static/provisioning suite_test.go, through a scenario scale step', () => {
  it('should create additional nodeclaims to reach desired replicas', async () => {
    const r = await run(
      scenario(10 * MINUTE, [step(0, apply(nodeClass(), staticPool(2))), step(HALF_PAST_5, scaleTo(4))]),
    );
    expect(await liveNodes(r)).toHaveLength(4);
    // Two at the start, two the moment the step scaled the pool, not at the next sweep (6m).
    expect(launchedAt(r).slice(2)).toEqual(['5m30s', '5m30s']);
  });

  it('should not create additional nodeclaims when node limits are reached', async () => {
    const r = await run(
      scenario(10 * MINUTE, [step(0, apply(nodeClass(), staticPool(2, { nodes: '3' }))), step(5 * MINUTE, scaleTo(5))]),
    );
    expect(await liveNodes(r)).toHaveLength(3);
  });

  it('should handle zero replicas', async () => {
    const r = await run(scenario(10 * MINUTE, [step(0, apply(nodeClass(), staticPool(0)))]));
    expect(await liveNodes(r)).toEqual([]);
    expect(launchedAt(r)).toEqual([]);
  });
});

describe('static/deprovisioning suite_test.go, through a scenario scale step', () => {
  it('should terminate excess nodeclaims when current count exceeds desired replicas, bypassing a budget of 0', async () => {
    const r = await run(
      scenario(15 * MINUTE, [step(0, apply(nodeClass(), staticPool(4))), step(HALF_PAST_5, scaleTo(1))]),
    );
    expect(await liveNodes(r)).toHaveLength(1);
    const disrupted = r.timeline.filter((e) => e.type === 'Disrupting');
    expect(disrupted.map((e) => e.at)).toEqual(['5m30s', '5m30s', '5m30s']);
    expect(r.violations.budget).toBe(0);
  });

  it('should handle zero replicas by terminating all nodeclaims', async () => {
    const r = await run(
      scenario(15 * MINUTE, [step(0, apply(nodeClass(), staticPool(3))), step(5 * MINUTE, scaleTo(0))]),
    );
    expect(await liveNodes(r)).toEqual([]);
    expect(await r.world.cloud.list()).toEqual([]);
  });

  it('should prioritize empty nodes (with only daemonset pods) for termination', async () => {
    const r = await run(
      scenario(15 * MINUTE, [
        step(0, apply(nodeClass(), staticPool(3))),
        step(2 * MINUTE, apply(deployment('web', 1))),
        step(5 * MINUTE, scaleTo(1)),
      ]),
    );
    const pods = await r.world.cluster.listPods();
    const webNode = pods.find((p) => p.metadata.labels?.app === 'web')?.spec.nodeName;
    expect(webNode).toBeDefined();
    expect(await liveNodes(r)).toEqual([webNode]);
    expect(r.podRemovals).toEqual([]);
  });

  it('scales down past the disruption budget but waits on a PodDisruptionBudget', async () => {
    const r = await run(
      scenario(15 * MINUTE, [
        step(0, apply(nodeClass(), staticPool(2))),
        step(2 * MINUTE, apply(deployment('web', 1), pdb('web', 'web', { maxUnavailable: 0 }))),
        step(5 * MINUTE, scaleTo(0)),
      ]),
    );
    const claims = await r.world.store.list({ states: LIVE_STATES });
    // The empty node is gone; the one holding the PDB-protected pod drains, its pod never evicted.
    expect(claims.map((c) => c.state)).toEqual(['Draining']);
    expect(r.podRemovals).toEqual([]);
    expect(r.violations.pdb).toBe(0);
  });
});

describe('the scale step on NodePools', () => {
  it('refuses to scale a dynamic NodePool, naming it, as a NodePool cannot switch to static', async () => {
    await expect(
      run(scenario(5 * MINUTE, [step(0, apply(nodeClass(), nodePool())), step(MINUTE, scaleTo(3))])),
    ).rejects.toThrow(/spec\.steps\[@60000\]: scale: NodePool static not found/);
    const dynamic: StepAction = { type: 'scaleNodePool', name: 'general', replicas: 3 };
    await expect(
      run(scenario(5 * MINUTE, [step(0, apply(nodeClass(), nodePool())), step(MINUTE, dynamic)])),
    ).rejects.toThrow(/NodePool general is not static \(it has no spec\.replicas\)/);
  });

  it('parses kind NodePool without a namespace, and names bad fields', async () => {
    const text = (scale: string) => `apiVersion: karpless.dev/v1alpha1
kind: Scenario
metadata: { name: s }
spec:
  until: 1h
  steps:
    - at: 1m
      scale: ${scale}`;
    expect(await scenarioProblems(text('{ kind: NodePool, name: static, replicas: 3 }'))).toEqual([]);
    expect(await scenarioProblems(text('{ kind: NodePool, namespace: x, name: static, replicas: -1 }'))).toEqual([
      expect.stringMatching(/spec\.steps\[0\]\.scale\.namespace: NodePool is not namespaced/),
      expect.stringMatching(/spec\.steps\[0\]\.scale\.replicas: must be at least 0, got -1/),
    ]);
  });
});
