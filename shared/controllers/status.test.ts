import { describe, expect, it } from 'vitest';
import { createTestbed, makePod, type Testbed } from '../../testkit/bed';
import type { EC2NodeClass, NodePool } from '../api/karpenter';
import type { StatusUpdate } from '../api/status';
import { ClusterApiError } from '../errors';
import type { CloudProvider, NodeClassResolution } from '../ports';
import type { ControlPlaneDeps } from './deps';
import { handleControlMessage } from './dispatch';
import { publishStatus, publishStatusQuietly } from './status';

const resolved: NodeClassResolution = {
  subnets: [{ id: 'subnet-a', zone: 'us-east-1a', zoneID: 'use1-az1' }],
  securityGroups: [{ id: 'sg-1', name: 'nodes' }],
  amis: [{ id: 'ami-1', requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] }],
  instanceProfile: 'karpless_demo_abc',
  ready: { status: 'True', reason: 'Ready', message: '' },
};

/** The simulated cloud, plus a resolution the test controls (the simulator resolves nothing itself). */
function withResolution(cloud: CloudProvider, resolution: () => NodeClassResolution): CloudProvider {
  return {
    create: (r) => cloud.create(r),
    delete: (id) => cloud.delete(id),
    get: (id) => cloud.get(id),
    list: () => cloud.list(),
    getInstanceTypes: (c) => cloud.getInstanceTypes(c),
    isDrifted: (c, n) => cloud.isDrifted(c, n),
    describeNodeClass: async () => resolution(),
  };
}

async function bed(): Promise<{
  t: Testbed;
  deps: ControlPlaneDeps;
  writes: StatusUpdate[];
  set: (r: NodeClassResolution) => void;
}> {
  const t = createTestbed({ cluster: 'demo' });
  let resolution = resolved;
  const writes: StatusUpdate[] = [];
  const kube = t.cluster;
  const replace = kube.replaceStatus.bind(kube);
  kube.replaceStatus = async (u) => {
    writes.push(u);
    return replace(u);
  };
  const deps = { ...t.deps, cloud: withResolution(t.cloud, () => resolution) };
  return { t, deps, writes, set: (r) => (resolution = r) };
}

const pool = async (t: Testbed): Promise<NodePool> => (await t.cluster.listNodePools())[0] as NodePool;
const nodeClass = async (t: Testbed): Promise<EC2NodeClass> => (await t.cluster.listNodeClasses())[0] as EC2NodeClass;

describe('publishStatus', () => {
  it("writes Karpenter's NodePool and EC2NodeClass status: nodes and their capacity, and readiness", async () => {
    const { t, deps } = await bed();
    t.cluster.addPod(makePod('web-0', { cpu: '500m', memory: '512Mi' }));
    await t.settle(60_000);
    const [claim] = await t.store.list({ states: ['Initialized'] });
    const type = (await t.cloud.getInstanceTypes(t.nodeClass)).find((it) => it.name === claim?.instanceType);
    const result = await publishStatus(deps);
    expect(result.replaced.sort()).toEqual(['EC2NodeClass/default', 'NodePool/default']);

    const now = t.clock.iso();
    const poolStatus = (await pool(t)).status;
    expect(poolStatus?.resources).toMatchObject({ nodes: '1', pods: String(type?.capacity.pods) });
    expect(poolStatus?.resources.cpu).toBe(String((type?.capacity.cpu ?? 0) / 1000));
    expect(poolStatus?.conditions).toEqual([
      {
        type: 'ValidationSucceeded',
        status: 'True',
        reason: 'ValidationSucceeded',
        message: '',
        lastTransitionTime: now,
      },
      { type: 'NodeClassReady', status: 'True', reason: 'NodeClassReady', message: '', lastTransitionTime: now },
      // Its one node registered.
      {
        type: 'NodeRegistrationHealthy',
        status: 'True',
        reason: 'NodeRegistrationHealthy',
        message: '',
        lastTransitionTime: now,
      },
      { type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: now },
    ]);
    const classStatus = (await nodeClass(t)).status;
    expect(classStatus).toMatchObject({
      subnets: resolved.subnets,
      securityGroups: resolved.securityGroups,
      amis: resolved.amis,
      instanceProfile: 'karpless_demo_abc',
    });
    expect(classStatus?.conditions.map((c) => [c.type, c.status])).toEqual([
      ['SubnetsReady', 'True'],
      ['SecurityGroupsReady', 'True'],
      ['AMIsReady', 'True'],
      ['InstanceProfileReady', 'True'],
      ['Ready', 'True'],
    ]);
  });

  it("sets NodeRegistrationHealthy False when the pool's nodes never register, and leaves Ready to the class", async () => {
    const t = createTestbed({ cluster: 'demo', registrationDelayMs: 24 * 3_600_000 });
    t.cluster.addPod(makePod('web-0', { cpu: '500m', memory: '512Mi' }));
    // Each claim times out unregistered and the pod is planned onto a new one.
    await t.settle(t.deps.config.registrationTimeoutMs * 2 + 5 * 60_000, 30_000);
    const failed = await t.store.list({ states: ['Failed', 'Terminated'] });
    expect(failed.filter((c) => c.failure?.reason === 'RegistrationTimeout').length).toBeGreaterThanOrEqual(2);
    await publishStatus(t.deps);
    const conditions = (await pool(t)).status?.conditions ?? [];
    expect(conditions.find((c) => c.type === 'NodeRegistrationHealthy')).toMatchObject({
      status: 'False',
      reason: 'RegistrationFailed',
      message: 'Failed to register node',
    });
    expect(conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
  });

  it('sets CapacityReservationsReady on a class that selects capacity reservations, as Karpenter does', async () => {
    const { t, deps } = await bed();
    const current = await nodeClass(t);
    t.cluster.upsert({
      ...current,
      spec: { ...current.spec, capacityReservationSelectorTerms: [{ tags: { team: 'ml' } }] },
    });
    await publishStatus(deps);
    const conditions = (await nodeClass(t)).status?.conditions ?? [];
    expect(conditions.find((c) => c.type === 'CapacityReservationsReady')).toMatchObject({
      status: 'True',
      reason: 'CapacityReservationsReady',
    });
    expect(conditions.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });
    expect((await pool(t)).status?.conditions.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });
  });

  it('writes nothing when nothing changed, and keeps transition times of conditions that held', async () => {
    const { t, deps, writes, set } = await bed();
    const metrics: [string, number][] = [];
    deps.metric = (name, value) => metrics.push([name, value]);
    await publishStatus(deps);
    expect(metrics).toEqual([['NodePoolsNotReady', 0]]);
    const first = t.clock.iso();
    writes.length = 0;
    t.clock.advance(60_000);
    expect(await publishStatus(deps)).toEqual({ replaced: [], failed: [], unchanged: 2 });
    expect(writes).toEqual([]);

    set({
      ...resolved,
      subnets: [],
      ready: { status: 'False', reason: 'SubnetsNotFound', message: 'EC2NodeClass default: no subnet matched' },
    });
    await publishStatus(deps);
    const later = t.clock.iso();
    const conditions = (await nodeClass(t)).status?.conditions ?? [];
    expect(conditions.find((c) => c.type === 'SubnetsReady')).toMatchObject({
      status: 'False',
      reason: 'SubnetsNotFound',
      lastTransitionTime: later,
    });
    expect(conditions.find((c) => c.type === 'AMIsReady')).toMatchObject({ status: 'True', lastTransitionTime: first });
    expect(conditions.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'SubnetsNotFound',
      message: 'EC2NodeClass default: no subnet matched',
    });
    expect(metrics.at(-1)).toEqual(['NodePoolsNotReady', 1]);
    // The pool cannot launch either, and says why.
    const poolConditions = (await pool(t)).status?.conditions ?? [];
    expect(poolConditions.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'NodeClassNotReady',
      message: 'EC2NodeClass default: no subnet matched',
      lastTransitionTime: later,
    });
    expect(poolConditions.find((c) => c.type === 'ValidationSucceeded')?.lastTransitionTime).toBe(first);
  });

  it('a NodePool whose EC2NodeClass does not exist is not ready, and echoes generations', async () => {
    const { t, deps } = await bed();
    t.cluster.upsert({ ...t.nodePool, metadata: { ...t.nodePool.metadata, generation: 3 } });
    t.cluster.upsert({
      ...t.nodePool,
      metadata: { name: 'orphan', generation: 7 },
      spec: {
        ...t.nodePool.spec,
        template: {
          ...t.nodePool.spec.template,
          spec: {
            ...t.nodePool.spec.template.spec,
            nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'missing' },
          },
        },
      },
    });
    await publishStatus(deps);
    const orphan = (await t.cluster.listNodePools()).find((p) => p.metadata.name === 'orphan');
    expect(orphan?.status?.resources).toEqual({ nodes: '0' });
    expect(orphan?.status?.conditions.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'NodeClassNotFound',
      message: 'EC2NodeClass missing not found',
      observedGeneration: 7,
    });
    expect((await pool(t)).status?.conditions.every((c) => c.observedGeneration === 3)).toBe(true);
  });

  it('a class that fails to resolve keeps what it resolved last and is not ready, with the error', async () => {
    const { t, deps } = await bed();
    await publishStatus(deps);
    t.clock.advance(60_000);
    const failing = {
      ...deps,
      cloud: withResolution(t.cloud, () => {
        throw new Error('UnauthorizedOperation: ec2:DescribeSubnets');
      }),
    };
    expect((await publishStatus(failing)).replaced.sort()).toEqual(['EC2NodeClass/default', 'NodePool/default']);
    const status = (await nodeClass(t)).status;
    expect(status?.subnets).toEqual(resolved.subnets);
    expect(status?.conditions.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ResolutionFailed',
      message: 'EC2NodeClass default could not be resolved: UnauthorizedOperation: ec2:DescribeSubnets',
    });
    expect((await pool(t)).status?.conditions.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'NodeClassNotReady',
    });
  });

  it('a refused write leaves the other objects published, and a 403 names the ClusterRole to re-apply', async () => {
    const { t, deps } = await bed();
    const warnings: Record<string, unknown>[] = [];
    const logged = {
      ...deps,
      log: { ...deps.log, warn: (_m: string, f?: Record<string, unknown>) => warnings.push(f ?? {}) },
    };
    const replace = t.cluster.replaceStatus.bind(t.cluster);
    t.cluster.replaceStatus = async (u) => {
      if (u.kind === 'EC2NodeClass')
        throw new ClusterApiError('forbidden: the identity lacks RBAC verb "patch"', 403, false);
      return replace(u);
    };
    const result = await publishStatus(logged);
    expect(result).toMatchObject({ replaced: ['NodePool/default'], failed: ['EC2NodeClass/default'] });
    expect((await pool(t)).status).toBeDefined();
    expect(warnings).toEqual([
      {
        object: 'EC2NodeClass/default',
        error: 'forbidden: the identity lacks RBAC verb "patch"',
        hint: expect.stringContaining('karpless forwarder rbac'),
      },
    ]);
  });

  it('runs on the Sweep tick; failed writes are reported, and a pass that cannot run is a warning, not a failed tick', async () => {
    const { t, deps } = await bed();
    const sweep = { v: 1 as const, cluster: 'demo', kind: 'Sweep' as const, at: t.clock.iso() };
    const ok = await handleControlMessage(deps, sweep);
    expect(ok).toMatchObject({ kind: 'sweep', status: { replaced: ['EC2NodeClass/default', 'NodePool/default'] } });
    t.cluster.replaceStatus = async () => {
      throw new Error('nodepools.karpenter.sh "default" is forbidden');
    };
    t.clock.advance(60_000);
    const failing = { ...deps, cloud: withResolution(t.cloud, () => ({ ...resolved, amis: [] })) };
    const result = await handleControlMessage(failing, { ...sweep, at: t.clock.iso() });
    expect(result).toMatchObject({
      kind: 'sweep',
      status: { replaced: [], failed: ['EC2NodeClass/default'] },
    });
    // A pass that cannot even read (the API server down): logged, and the tick goes on without a status result.
    const warnings: string[] = [];
    const unreadable = {
      ...deps,
      kube: Object.assign(Object.create(t.cluster), {
        listNodeClasses: async () => {
          throw new Error('connect ECONNREFUSED');
        },
      }),
      log: { ...deps.log, warn: (m: string) => warnings.push(m) },
    };
    expect(await publishStatusQuietly(unreadable)).toBeUndefined();
    expect(warnings).toEqual(['status not published']);
  });
});
