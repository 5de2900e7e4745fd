// A scenario's `delete: { kind: NodePool }` step: `kubectl delete nodepool`. As Karpenter's owner references cascade,
// the pool's nodes are drained (PodDisruptionBudgets respected) and terminated at the step's instant, and their pods
// run again on the NodePool that is left (docs/disruption.md, Deleting a NodePool).
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
import { parseScenario } from './parse';
import type { StepAction } from './types';

const deletePool = (name: string): StepAction => ({
  type: 'delete',
  targets: [{ kind: 'NodePool', namespace: '', name }],
});

describe('a NodePool deleted during a scenario', () => {
  it("drains and terminates the pool's nodes at the step, under the PDB, and the pods move to the other pool", async () => {
    const r = await run(
      scenario(30 * MINUTE, [
        step(
          0,
          apply(
            nodeClass(),
            nodePool({ name: 'general', types: ['m5.xlarge'] }),
            deployment('web', 3, { cpu: '3' }),
            pdb('web', 'web', { maxUnavailable: 1 }),
          ),
        ),
        step(10 * MINUTE, apply(nodePool({ name: 'spare', types: ['m5.xlarge'] }))),
        step(15.5 * MINUTE, deletePool('general')),
      ]),
    );
    expect(r.warnings).toEqual([]);
    const claims = await r.world.store.list();
    const general = claims.filter((c) => c.nodePool === 'general');
    expect(general).toHaveLength(3);
    for (const c of general) {
      expect(c).toMatchObject({
        state: 'Terminated',
        disruption: { cause: 'NodePoolDeleted', detail: 'NodePool general was deleted' },
      });
    }
    // Started by the step's NodePoolChanged hint, at its instant: not at the next sweep or GC tick.
    const disrupting = r.timeline.filter((e) => e.type === 'Disrupting');
    expect(disrupting.map((e) => [e.at, e.reason])).toEqual([
      ['15m30s', 'NodePoolDeleted'],
      ['15m30s', 'NodePoolDeleted'],
      ['15m30s', 'NodePoolDeleted'],
    ]);
    const spare = (await r.world.store.list({ states: LIVE_STATES })).filter((c) => c.nodePool === 'spare');
    const pods = await r.world.cluster.listPods();
    expect(pods).toHaveLength(3);
    for (const p of pods) expect(spare.map((c) => c.nodeName)).toContain(p.spec.nodeName);
    expect(r.violations).toMatchObject({ pdb: 0 });
  }, 120_000);

  it('parses `delete: { kind: NodePool, name }` and refuses a namespace on it', async () => {
    const text = (target: string) => `apiVersion: karpless.dev/v1alpha1
kind: Scenario
metadata: { name: gone }
spec:
  until: 5m
  steps:
    - at: 1m
      delete: ${target}
`;
    const parsed = await parseScenario(text('{ kind: NodePool, name: general }'), 's.yaml', async () => {
      throw new Error('no files');
    });
    expect(parsed.steps[0]?.action).toEqual({
      type: 'delete',
      targets: [{ kind: 'NodePool', namespace: '', name: 'general' }],
    });
    expect(await scenarioProblems(text('{ kind: NodePool, namespace: shop, name: general }'))).toEqual([
      expect.stringMatching(/spec\.steps\[0\]\.delete\.namespace.*NodePool is not namespaced/),
    ]);
  });
});
