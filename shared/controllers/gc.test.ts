import { describe, expect, it } from 'vitest';
import { crashAfterLaunch, createTestbed, makePod } from '../../testkit/bed';
import { nodeClaim } from '../../testkit/builders';
import { repairBed } from '../../testkit/repair';
import type { NodeClaim } from '../api/nodeclaim';
import { collectGarbage } from './gc';
import { reconcileNodes } from './lifecycle';
import { provision } from './provision';

describe('collectGarbage', () => {
  it('terminates a tagged instance with no claim once it is older than 30 s', async () => {
    const t = createTestbed();
    // An instance launched for a claim that was never recorded (the Lambda died before its write survived).
    const ghost = nodeClaim({
      name: 'default-ghost',
      uid: 'uid-ghost',
      cluster: 'test',
      labels: {},
      requests: {},
      nominatedPods: [],
      createdAt: new Date(t.clock.now()).toISOString(),
    });
    const types = await t.cloud.getInstanceTypes(t.nodeClass);
    const orphan = await t.cloud.create({
      claim: ghost,
      nodePool: t.nodePool,
      nodeClass: t.nodeClass,
      instanceTypes: types.filter((x) => x.name === 'm5.large'),
    });
    t.clock.advance(10_000);
    expect((await collectGarbage(t.deps)).terminatedInstances).toEqual([]);
    t.clock.advance(21_000);
    expect((await collectGarbage(t.deps)).terminatedInstances).toEqual([orphan.instanceId]);
    expect(await t.cloud.list()).toEqual([]);
  });

  it('keeps the instance of a live claim, and of a Pending claim that has not recorded it yet', async () => {
    const t = createTestbed();
    t.cluster.addPod(makePod('web-0'));
    crashAfterLaunch(t);
    await provision(t.deps);
    t.deps.cloud = t.cloud;
    t.cluster.addPod(makePod('web-1', { cpu: '3' }));
    await provision(t.deps);
    t.clock.advance(60_000);
    expect((await collectGarbage(t.deps)).terminatedInstances).toEqual([]);
    expect(await t.cloud.list()).toHaveLength(2);
  });

  it('leaks nothing when a launch crashed and its claim timed out before any pass relaunched it', async () => {
    const t = createTestbed();
    t.cluster.addPod(makePod('web-0'));
    crashAfterLaunch(t);
    await provision(t.deps);
    t.deps.cloud = t.cloud;
    expect(await t.cloud.list()).toHaveLength(1);
    t.clock.advance(5 * 60_000 + 1);
    // The claim never recorded its instance: the launch timeout ends it, and GC finds the instance by its tag.
    await reconcileNodes(t.deps);
    expect((await t.store.list())[0]?.state).toBe('Terminated');
    const gc = await collectGarbage(t.deps);
    expect(gc.terminatedInstances).toHaveLength(1);
    expect(await t.cloud.list()).toEqual([]);
  });

  it('ends a claim whose instance is gone and re-plans its pods', async () => {
    const t = createTestbed();
    t.cluster.addPod(makePod('web-0'));
    const { launched } = await provision(t.deps);
    const claim = await t.store.get(launched[0] ?? '');
    await t.cloud.delete(claim?.instanceId ?? '');
    const result = await collectGarbage(t.deps);
    expect(result.failedClaims).toEqual(launched);
    expect((await t.store.get(claim?.name ?? ''))?.state).toBe('Failed');
    expect(t.queue.kinds().sort()).toEqual(['PodsPending', 'Terminate']);
    await t.pump();
    expect((await t.store.get(claim?.name ?? ''))?.state).toBe('Terminated');
    // The re-plan launched a replacement for the pod.
    expect(await t.cloud.list()).toHaveLength(1);
  });

  it('counts the end of an initialized claim whose instance is gone as garbage_collected, not unhealthy', async () => {
    // kubernetes-sigs/karpenter's garbage collection increments karpenter_nodeclaims_disrupted_total with reason
    // garbage_collected; node repair owns `unhealthy`.
    const b = await repairBed(1);
    const metrics: [string, Record<string, string> | undefined][] = [];
    b.t.deps.metric = (name, _value, _unit, dimensions) => metrics.push([name, dimensions]);
    const claim = b.claims[0] as (typeof b.claims)[number];
    await b.t.cloud.delete(claim.instanceId ?? '');
    expect((await collectGarbage(b.t.deps)).failedClaims).toEqual([claim.name]);
    expect((await b.t.store.get(claim.name))?.disruption?.cause).toBe('GarbageCollected');
    const disrupted = metrics.filter(([name]) => name === 'NodeClaimsDisrupted').map(([, d]) => d);
    expect(disrupted).toEqual([{ reason: 'garbage_collected', nodePool: 'default' }]);
  });

  it('goes on past an instance whose termination is refused, and counts the refusal', async () => {
    // The in-memory cloud refuses one instance as EC2 refuses an instance the GC role may not terminate (someone
    // else's, tagged for this cluster); moto does not refuse per instance on IAM, so it cannot stand in here.
    const t = createTestbed();
    const types = (await t.cloud.getInstanceTypes(t.nodeClass)).filter((x) => x.name === 'm5.large');
    const launchUnrecorded = async (name: string) => {
      const claim = nodeClaim({
        name,
        uid: `uid-${name}`,
        cluster: 'test',
        labels: {},
        requests: {},
        nominatedPods: [],
        createdAt: new Date(t.clock.now()).toISOString(),
      });
      return (await t.cloud.create({ claim, nodePool: t.nodePool, nodeClass: t.nodeClass, instanceTypes: types }))
        .instanceId;
    };
    const foreign = await launchUnrecorded('default-foreign');
    const orphan = await launchUnrecorded('default-orphan');
    // A claim whose instance is gone: GC's other duty in the same pass.
    t.cluster.addPod(makePod('web-0'));
    const { launched } = await provision(t.deps);
    const gone = await t.store.get(launched[0] ?? '');
    await t.cloud.delete(gone?.instanceId ?? '');
    t.deps.cloud = Object.assign(Object.create(t.cloud), {
      delete: async (instanceId: string) => {
        if (instanceId === foreign) {
          throw new Error(`UnauthorizedOperation: You are not authorized to perform this operation. (${instanceId})`);
        }
        return t.cloud.delete(instanceId);
      },
    });
    const metrics: [string, number][] = [];
    t.deps.metric = (name, value) => metrics.push([name, value]);
    t.clock.advance(60_000);
    const result = await collectGarbage(t.deps);
    expect(result.terminatedInstances).toEqual([orphan]);
    expect(result.failedClaims).toEqual(launched);
    expect((await t.cloud.list()).map((i) => i.instanceId)).toEqual([foreign]);
    expect(metrics).toContainEqual(['OrphanTerminationsFailed', 1]);
    expect(metrics).toContainEqual(['OrphanInstancesTerminated', 1]);
  });

  it('leaves a tagged instance without proof of launch running, counted, and ends one a claim recorded', async () => {
    const t = createTestbed();
    const types = (await t.cloud.getInstanceTypes(t.nodeClass)).filter((x) => x.name === 'm5.large');
    const ghost = nodeClaim({ name: 'default-tagged', uid: 'uid-tagged', cluster: 'test', nominatedPods: [] });
    const tagged = await t.cloud.create({
      claim: ghost,
      nodePool: t.nodePool,
      nodeClass: t.nodeClass,
      instanceTypes: types,
    });
    // A claim that recorded its instance and ended while the instance stayed (its termination failed).
    t.cluster.addPod(makePod('web-0'));
    const { launched } = await provision(t.deps);
    const recorded = await t.store.get(launched[0] ?? '');
    const failed = await t.store.transition(recorded as NodeClaim, 'Failed');
    await t.store.transition(failed, 'Terminated');
    // The cloud sees the tags but no proof that Karpless launched either instance.
    t.deps.cloud = Object.assign(Object.create(t.cloud), {
      list: async () => (await t.cloud.list()).map(({ launchProof: _, ...rest }) => rest),
    });
    const metrics: [string, number][] = [];
    t.deps.metric = (name, value) => metrics.push([name, value]);
    t.clock.advance(60_000);
    const result = await collectGarbage(t.deps);
    expect(result.terminatedInstances).toEqual([recorded?.instanceId]);
    expect((await t.cloud.list()).map((i) => i.instanceId)).toEqual([tagged.instanceId]);
    expect(metrics).toContainEqual(['OrphansUnproven', 1]);
  });

  it('asks a cloud that can delete stale launch templates to do so', async () => {
    const t = createTestbed();
    let asked = 0;
    t.deps.cloud = Object.assign(Object.create(t.cloud), {
      deleteStaleLaunchTemplates: async () => {
        asked++;
        return 2;
      },
    });
    expect((await collectGarbage(t.deps)).launchTemplatesDeleted).toBe(2);
    expect(asked).toBe(1);
  });
});
