import { CreateFleetCommand } from '@aws-sdk/client-ec2';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeAws, fakeAws } from '../../testkit/aws/fake-aws';
import { fakeAwsProvider } from '../../testkit/aws/provider';
import { RecordingQueue } from '../../testkit/bed';
import { ec2NodeClass, nodeClaim, nodePool } from '../../testkit/builders';
import { makeInstanceType } from '../../testkit/instance-types';
import { type ControlPlaneDeps, controlPlaneConfig, noMetric, silentLog } from '../controllers/deps';
import { launchClaim } from '../controllers/launch';
import { SimCluster } from '../sim/sim-cluster';
import { VirtualClock } from '../sim/virtual-clock';
import { type LocalDynamo, startLocalDynamo } from './dynamo/local';
import { DynamoNodeClaimStore } from './dynamo/store';

let db: LocalDynamo;
let aws: FakeAws;
let n = 0;
const clock = { now: () => Date.parse('2026-01-01T00:00:00Z') };
beforeAll(async () => {
  db = await startLocalDynamo('launch');
});
afterAll(async () => {
  await db.stop();
});
beforeEach(() => {
  aws = fakeAws();
});
afterEach(() => aws.restore());

// The production launch path (shared/controllers' launchClaim) on the AWS CloudProvider and the DynamoDB store.
function setup() {
  const cluster = `l${++n}`;
  const store = new DynamoNodeClaimStore({ tableName: db.tableName, cluster, client: db.client, clock });
  const cloud = fakeAwsProvider(aws, { instanceTypes: () => [], clock });
  const queue = new RecordingQueue(clock);
  const deps: ControlPlaneDeps = {
    cluster,
    kube: new SimCluster({ clock: new VirtualClock(clock.now()) }),
    cloud,
    store,
    queue,
    clock,
    log: silentLog,
    metric: noMetric,
    config: controlPlaneConfig(),
  };
  return { store, cloud, queue, deps };
}

const context = () => ({ nodePool: nodePool(), nodeClass: ec2NodeClass(), types });

const types = [makeInstanceType('m5.large', { spot: { 'us-east-1a': 0.04 } })];

describe('launchClaim', () => {
  it('launches a Pending claim and records the instance on it; a replay launches nothing new', async () => {
    const { store, deps } = setup();
    const claim = await store.create(nodeClaim());
    const out = await launchClaim(deps, claim, context());
    expect(out.kind).toBe('launched');
    const stored = await store.get(claim.name);
    expect(stored).toMatchObject({
      state: 'Launched',
      instanceType: 'm5.large',
      zone: 'us-east-1a',
      capacityType: 'spot',
      imageId: 'ami-amd-new',
    });
    expect(stored?.instanceId).toMatch(/^i-/);
    expect((await store.getByInstanceId(stored?.instanceId ?? ''))?.name).toBe(claim.name);
    // The Lambda died after launching but before it saw the answer: the replay uses the stale Pending copy.
    const replay = await launchClaim(deps, claim, context());
    expect(replay.kind).toBe('launched');
    expect(aws.ec2.commandCalls(CreateFleetCommand)).toHaveLength(1);
    expect((await store.get(claim.name))?.version).toBe(stored?.version);
  });

  it('on ICE caches the offerings and deletes the claim', async () => {
    const { store, queue, deps } = setup();
    aws.state.noCapacity.add('m5.large/us-east-1a/spot');
    const claim = await store.create(nodeClaim());
    const out = await launchClaim(deps, claim, context());
    expect(out.kind).toBe('insufficient-capacity');
    expect(await store.get(claim.name)).toBeUndefined();
    expect(
      (await store.listUnavailable(clock.now())).map((o) => `${o.instanceType}/${o.zone}/${o.capacityType}`),
    ).toEqual(['m5.large/us-east-1a/spot']);
    // Its pods are planned again at once, around the offering just cached.
    expect(queue.sent.map((m) => JSON.parse(m.body).kind)).toEqual(['PodsPending']);
  });

  it('marks the claim Failed with the reason on a non-retryable launch error', async () => {
    const { store, deps } = setup();
    aws.state.nextFleetErrors.push({ code: 'AuthFailure.ServiceLinkedRoleCreationNotPermitted', message: 'no' });
    const claim = await store.create(nodeClaim());
    const out = await launchClaim(deps, claim, context());
    expect(out.kind).toBe('failed');
    expect(await store.get(claim.name)).toMatchObject({
      state: 'Failed',
      failure: { reason: 'service-linked-role' },
    });
  });
});
