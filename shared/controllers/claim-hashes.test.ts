// Claims recorded under an older hash version (CLAIM_HASH_VERSION) are not compared by hash, and the planning sweep
// re-stamps them, so a hash change in a Karpless upgrade never drifts a fleet, and drift works again afterwards.
import { describe, expect, it } from 'vitest';
import { createTestbed, makePod, sweepDrift, type Testbed, testNodePool } from '../../testkit/bed';
import { CLAIM_HASH_VERSION, nodeClassHash, nodePoolTemplateHash, specHash } from '../api/hash';
import type { NodePool } from '../api/karpenter';
import { LabelCapacityType } from '../api/labels';
import { disruptionSweep } from './disruption';

const capacity = (types: string[]) => [{ key: LabelCapacityType, operator: 'In' as const, values: types }];

/** One initialized node whose claim is rewritten as a version-1 claim: the full-template hash, no version. */
async function oldClaim(): Promise<{ t: Testbed; name: string }> {
  const t = createTestbed({ nodePool: testNodePool('default', capacity(['on-demand'])) });
  t.cluster.addPod(makePod('web-0', { cpu: '500m', memory: '512Mi' }));
  await t.settle(60_000);
  const [claim] = await t.store.list({ states: ['Initialized'] });
  if (!claim) throw new Error('no initialized claim');
  expect(claim.hashVersion).toBe(CLAIM_HASH_VERSION);
  const { hashVersion: _, ...rest } = claim;
  await t.store.delete(claim);
  await t.store.create({ ...rest, version: 1, nodePoolHash: specHash(t.nodePool.spec.template) });
  return { t, name: claim.name };
}

function change(t: Testbed, edit: (pool: NodePool) => void): NodePool {
  const pool = structuredClone(t.nodePool);
  edit(pool);
  t.cluster.upsert(pool);
  t.nodePool = pool;
  return pool;
}

describe('claim hash versions', () => {
  it('an old-version claim is not drifted by its hash: widening an In list leaves it alone', async () => {
    const { t, name } = await oldClaim();
    change(t, (p) => {
      p.spec.template.spec.requirements = capacity(['on-demand', 'spot']);
    });
    // Before versioning this compared the full-template hash and drifted the node.
    expect(await sweepDrift(t, name)).toBeUndefined();
    const sweep = await disruptionSweep(t.deps);
    expect(sweep.plan?.commands.filter((c) => c.reason === 'Drifted')).toEqual([]);
  });

  it('the planning sweep re-stamps it once with the current hashes, and later template changes drift it', async () => {
    const { t, name } = await oldClaim();
    await sweepDrift(t, name, true);
    const stamped = await t.store.get(name);
    expect(stamped).toMatchObject({
      hashVersion: CLAIM_HASH_VERSION,
      nodePoolHash: nodePoolTemplateHash(t.nodePool),
      nodeClassHash: nodeClassHash(t.nodeClass),
    });
    // Already current: a second planning sweep writes nothing.
    await sweepDrift(t, name, true);
    expect((await t.store.get(name))?.version).toBe(stamped?.version);

    change(t, (p) => {
      p.spec.template.spec.requirements = capacity(['on-demand', 'spot']);
    });
    expect(await sweepDrift(t, name)).toBeUndefined();
    change(t, (p) => {
      p.spec.template.metadata = { ...p.spec.template.metadata, labels: { team: 'payments' } };
    });
    expect(await sweepDrift(t, name)).toMatch(/NodePool default template changed/);
  });

  it('a requirement the node no longer satisfies still drifts an old-version claim', async () => {
    const { t, name } = await oldClaim();
    change(t, (p) => {
      p.spec.template.spec.requirements = capacity(['spot']);
    });
    expect(await sweepDrift(t, name)).toMatch(/capacity-type In spot no longer admits/);
  });
});
