// A replacement launched by the disruption sweep must record the same NodePool and EC2NodeClass hashes drift
// detection compares (as provisioned claims do): otherwise a requirement-only NodePool change that still admits the
// replacement drifts it, and the next sweep replaces it again.
import { describe, expect, it } from 'vitest';
import { createTestbed, makePod, sweepDrift, type Testbed, testNodePool } from '../../testkit/bed';
import type { NodePool } from '../api/karpenter';
import { LabelCapacityType, LabelInstanceType } from '../api/labels';
import { disruptionSweep } from './disruption';

const requirements = (types: string[]) => [
  { key: LabelInstanceType, operator: 'In' as const, values: types },
  { key: LabelCapacityType, operator: 'In' as const, values: ['on-demand'] },
];

/** Three c5.xlarge nodes (no two 2.5-cpu pods fit one) merged by the sweep into one c5.2xlarge; returns its claim. */
async function mergedReplacement(): Promise<{ t: Testbed; replacement: string }> {
  const nodePool = testNodePool('default', requirements(['c5.xlarge', 'c5.2xlarge']));
  nodePool.spec.disruption = { ...nodePool.spec.disruption, budgets: [{ nodes: '100%' }] };
  const t = createTestbed({ nodePool });
  for (const name of ['web-0', 'web-1', 'web-2']) {
    t.cluster.addPod(makePod(name, { cpu: '2500m', memory: '512Mi' }));
    await t.settle(60_000);
  }
  const originals = new Set((await t.store.list({ states: ['Initialized'] })).map((c) => c.name));
  expect(originals.size).toBe(3);
  for (let i = 0; i < 20 && (await t.store.list({ states: ['Terminated'] })).length < 3; i++) {
    await disruptionSweep(t.deps);
    await t.settle(30_000);
  }
  await t.settle(60_000);
  const live = await t.store.list({ states: ['Initialized'] });
  expect(live.map((c) => c.instanceType)).toEqual(['c5.2xlarge']);
  const [replacement] = live;
  if (!replacement || originals.has(replacement.name)) throw new Error('no replacement launched by the sweep');
  return { t, replacement: replacement.name };
}

/** A changed copy of the NodePool (objects are replaced, never mutated, between sweeps). */
function changed(t: Testbed, edit: (pool: NodePool) => void): NodePool {
  const pool = structuredClone(t.nodePool);
  edit(pool);
  t.cluster.upsert(pool);
  return pool;
}

describe('replacement claims and drift', () => {
  it('a consolidation replacement is not drifted, and its next sweep decides nothing', async () => {
    const { t, replacement } = await mergedReplacement();
    expect(await sweepDrift(t, replacement)).toBeUndefined();
    const next = await disruptionSweep(t.deps);
    expect(next.plan?.commands).toEqual([]);
  });

  it('widening an In list does not drift a consolidation replacement', async () => {
    const { t, replacement } = await mergedReplacement();
    changed(t, (p) => {
      p.spec.template.spec.requirements = requirements(['c5.xlarge', 'c5.2xlarge', 'c5.4xlarge']);
    });
    expect(await sweepDrift(t, replacement)).toBeUndefined();
    const next = await disruptionSweep(t.deps);
    expect(next.plan?.commands.filter((c) => c.reason === 'Drifted')).toEqual([]);
  });

  it('a NodePool template change drifts a consolidation replacement, and the sweep decides to replace it', async () => {
    const { t, replacement } = await mergedReplacement();
    changed(t, (p) => {
      p.spec.template.metadata = { ...p.spec.template.metadata, annotations: { team: 'payments' } };
    });
    expect(await sweepDrift(t, replacement)).toMatch(/NodePool default template changed/);
    const next = await disruptionSweep(t.deps);
    const drifted = next.plan?.commands.filter((c) => c.reason === 'Drifted') ?? [];
    expect(drifted.flatMap((c) => c.candidates.map((x) => x.nodeClaim))).toEqual([replacement]);
  });

  it('an EC2NodeClass change drifts a consolidation replacement', async () => {
    const { t, replacement } = await mergedReplacement();
    t.cluster.upsert({ ...t.nodeClass, spec: { ...t.nodeClass.spec, userData: 'echo changed' } });
    expect(await sweepDrift(t, replacement)).toMatch(/EC2NodeClass default changed/);
  });
});
