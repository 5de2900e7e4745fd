// Per-NodePool ownership for a cut-over from Karpenter (clusters.yaml `nodePools`, ownership.ts): Karpless plans
// and publishes status only for the pools it owns, and leaves alone the pods only Karpenter's pools could serve.
import { describe, expect, it } from 'vitest';
import { createTestbed, makePod, testNodePool } from '../../testkit/bed';
import type { NodePool } from '../api/karpenter';
import type { Pod } from '../api/kube';
import { ownedView } from './ownership';
import { provision } from './provision';
import { publishStatus } from './status';

const GPU_TAINT = { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' as const };

/** Karpenter's pool, not moved yet: tainted, so only pods that tolerate it land there. */
function gpuPool(): NodePool {
  const pool = testNodePool('gpu');
  return {
    ...pool,
    spec: {
      ...pool.spec,
      template: { ...pool.spec.template, spec: { ...pool.spec.template.spec, taints: [GPU_TAINT] } },
    },
  };
}

function bed(owned?: string[]) {
  const t = createTestbed({
    nodePool: testNodePool('general'),
    ...(owned ? { config: { ownedNodePools: owned } } : {}),
  });
  t.cluster.upsert(gpuPool());
  const trainer: Pod = makePod('trainer-0', {
    cpu: '1',
    memory: '1Gi',
    tolerations: [{ ...GPU_TAINT, operator: 'Equal' }],
  });
  trainer.spec.nodeSelector = { 'karpenter.sh/nodepool': 'gpu' };
  const odd: Pod = makePod('odd-0', { cpu: '1', memory: '1Gi' });
  odd.spec.nodeSelector = { 'kubernetes.io/arch': 's390x' };
  t.cluster.addPod(makePod('web-0', { cpu: '1', memory: '1Gi' }));
  t.cluster.addPod(trainer);
  t.cluster.addPod(odd);
  return t;
}

const failedFor = (t: ReturnType<typeof bed>) =>
  t.cluster.events
    .filter((e) => e.reason === 'FailedScheduling')
    .map((e) => e.involved.name)
    .sort();

describe('NodePool ownership during a cut-over', () => {
  it('plans only with the owned pools and stays silent about pods only the other pools could serve', async () => {
    const t = bed(['general']);
    await provision(t.deps);
    const claims = await t.store.list();
    expect(claims.map((c) => c.nodePool)).toEqual(['general']);
    expect(claims.flatMap((c) => c.nominatedPods.map((p) => p.name))).toEqual(['web-0']);
    // trainer-0 is Karpenter's to serve; odd-0 no pool can serve, so Karpless still says why.
    expect(failedFor(t)).toEqual(['odd-0']);
  });

  it('without the setting owns every pool, and serves the pod the other pool could take', async () => {
    const t = bed();
    await provision(t.deps);
    const claims = await t.store.list();
    expect(claims.map((c) => c.nodePool).sort()).toEqual(['general', 'gpu']);
    expect(failedFor(t)).toEqual(['odd-0']);
  });

  it('publishes status only for the owned pools and the classes they use', async () => {
    const t = bed(['general']);
    const result = await publishStatus(t.deps);
    expect(result.replaced).toContain('NodePool/general');
    expect(result.replaced).not.toContain('NodePool/gpu');
    expect(result.failed).toEqual([]);
  });

  it('keeps a pod both kinds of pool could serve', () => {
    const pod = makePod('any-0', { cpu: '1' });
    const view = ownedView([testNodePool('general'), testNodePool('old')], [pod], ['general']);
    expect(view.nodePools.map((p) => p.metadata.name)).toEqual(['general']);
    expect(view.pending).toEqual([pod]);
    expect(view.ignored).toEqual([]);
    const pinned = { ...pod, spec: { ...pod.spec, nodeSelector: { 'karpenter.sh/nodepool': 'old' } } };
    expect(ownedView([testNodePool('general'), testNodePool('old')], [pinned], ['general']).ignored).toEqual([pinned]);
  });
});

/** EKS Auto Mode's general-purpose pool: its nodeClassRef is Auto Mode's NodeClass, and its pods ask for Auto Mode's
 * compute type. */
function autoModePool(): NodePool {
  const pool = testNodePool('general-purpose');
  return {
    ...pool,
    spec: {
      ...pool.spec,
      template: {
        ...pool.spec.template,
        spec: {
          ...pool.spec.template.spec,
          nodeClassRef: { group: 'eks.amazonaws.com', kind: 'NodeClass', name: 'default' },
          requirements: [{ key: 'eks.amazonaws.com/compute-type', operator: 'In', values: ['auto'] }],
        },
      },
    },
  };
}

function autoModeBed() {
  const t = createTestbed({ nodePool: testNodePool('general') });
  t.cluster.upsert(autoModePool());
  const auto: Pod = makePod('auto-0', { cpu: '1', memory: '1Gi' });
  auto.spec.nodeSelector = { 'eks.amazonaws.com/compute-type': 'auto' };
  t.cluster.addPod(auto);
  t.cluster.addPod(makePod('web-0', { cpu: '1', memory: '1Gi' }));
  return t;
}

describe("another provider's NodePools (EKS Auto Mode)", () => {
  it('are never planned on, and the pods only they could serve are left to them without an event', async () => {
    const t = autoModeBed();
    const infos: { message: string; fields: unknown }[] = [];
    t.deps.log = { ...t.deps.log, info: (message, fields) => infos.push({ message, fields }) };
    await provision(t.deps);
    const claims = await t.store.list();
    expect(claims.map((c) => c.nodePool)).toEqual(['general']);
    expect(claims.flatMap((c) => c.nominatedPods.map((p) => p.name))).toEqual(['web-0']);
    expect(failedFor(t)).toEqual([]);
    expect(infos).toContainEqual({
      message: 'NodePools left to another provider',
      fields: { nodePools: ['general-purpose (eks.amazonaws.com/NodeClass)'] },
    });
  });

  it('are not owned even when the cut-over setting names them', () => {
    const pod = makePod('any-0', { cpu: '1' });
    const view = ownedView([testNodePool('general'), autoModePool()], [pod], ['general', 'general-purpose']);
    expect(view.nodePools.map((p) => p.metadata.name)).toEqual(['general']);
  });

  it('keep the status their owner writes', async () => {
    const t = autoModeBed();
    const result = await publishStatus(t.deps);
    expect(result.replaced).toContain('NodePool/general');
    expect(result.replaced).not.toContain('NodePool/general-purpose');
    expect(result.failed).toEqual([]);
  });
});
