// The interruption path and garbage collection on moto_server, through the real handlers and adapters: an
// EventBridge-shaped spot warning on the SQS interruption queue reaches the interruption handler through an SQS
// event source, termination steps travel the standard termination queue, and the instance ends terminated in EC2.
// GC finds leaked instances through their tags. The cluster side is the simulated Kubernetes API.
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { DescribeInstancesCommand, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { CreateQueueCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { readFixture } from '../../events';
import type { ControlPlanePorts } from '../../functions/_wiring/ports';
import { createHandler as createGc, type GcOutput } from '../../functions/gc/handler';
import { createHandler as createInterruption } from '../../functions/interruption/handler';
import { createObservability } from '../../functions/middleware';
import { fakeContext } from '../../functions/middleware/fake-context';
import { createHandler as createTermination } from '../../functions/termination/handler';
import type { NodeClaim } from '../../shared/api/nodeclaim';
import { AwsCloudProvider } from '../../shared/aws/cloud-provider';
import { createTableInput } from '../../shared/aws/dynamo/schema';
import { DynamoNodeClaimStore } from '../../shared/aws/dynamo/store';
import { SqsEventSource, SqsWorkQueue } from '../../shared/aws/sqs';
import { controlPlaneConfig } from '../../shared/controllers';
import { SimCluster, VirtualClock } from '../../shared/sim';
import { testCluster } from '../../testkit/aws/objects';
import { ec2NodeClass, nodeClaim, nodePool } from '../../testkit/builders';
import { makeInstanceType } from '../../testkit/instance-types';
import { type Emulator, emulator } from './emulator';
import { createTestNetwork, type TestNetwork } from './network';
import { relaunchStamped } from './stamped-launch';

const cluster = testCluster.name;
let aws: Emulator;
let net: TestNetwork;
let store: DynamoNodeClaimStore;
let cloud: AwsCloudProvider;
let ports: ControlPlanePorts;
let queues: { events: string; interruption: string; termination: string };
/** Real time: moto stamps launches with the wall clock, and GC compares ages against it. */
const clock = { now: () => Date.now() };

beforeAll(async () => {
  aws = emulator();
  net = await createTestNetwork(aws.ec2, aws.iam, cluster);
  await aws.dynamo.send(new CreateTableCommand(createTableInput('karpless-interruption')));
  const queue = async (name: string, attributes: Record<string, string> = {}) =>
    (await aws.sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }))).QueueUrl as string;
  queues = {
    events: await queue('karpless-events.fifo', { FifoQueue: 'true', ContentBasedDeduplication: 'true' }),
    interruption: await queue('karpless-interruption'),
    termination: await queue('karpless-termination'),
  };
  store = new DynamoNodeClaimStore({ tableName: 'karpless-interruption', cluster, client: aws.documents, clock });
  cloud = new AwsCloudProvider({
    cluster: testCluster,
    ec2: aws.ec2,
    ssm: aws.ssm,
    iam: aws.iam,
    clock,
    instanceTypes: () => [],
    sleep: async () => {},
  });
  ports = {
    cluster,
    // The NodePool the claims were launched for: GC terminates the claims of a NodePool that is gone.
    kube: new SimCluster({ clock: new VirtualClock(Date.now()) }).load([nodePool()]),
    cloud,
    store,
    queue: new SqsWorkQueue(aws.sqs, queues.events),
    terminationQueue: new SqsWorkQueue(aws.sqs, queues.termination),
    clock,
    // Short drain re-queues so the real DelaySeconds of the termination queue keep the test quick.
    config: controlPlaneConfig({ drainRequeueSeconds: 1, orphanGraceMs: 0 }),
  };
});

const observability = (service: string) => createObservability({ cluster, service, logLevel: 'ERROR' });
const context = (fn: string): Context => fakeContext(() => 60_000, `karpless-${cluster}-${fn}`);

/** Launches an instance for a claim stored as Launched, as the provisioner leaves it. */
async function launchedClaim(name: string): Promise<NodeClaim> {
  const claim = nodeClaim({ name, uid: `uid-${name}-${aws.account}`, cluster });
  const instance = await cloud.create({
    claim,
    nodePool: nodePool(),
    nodeClass: ec2NodeClass({ amiSelectorTerms: [{ id: net.images.amd64 }], role: net.role }),
    instanceTypes: [makeInstanceType('m5.large', { zones: ['us-east-1a', 'us-east-1b'] })],
  });
  const created = await store.create(claim);
  return store.transition(created, 'Launched', {
    instanceId: instance.instanceId,
    providerID: instance.providerID,
    instanceType: instance.instanceType,
    zone: instance.zone,
    capacityType: instance.capacityType,
  });
}

async function instanceState(id: string): Promise<string | undefined> {
  const out = await aws.ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }));
  return out.Reservations?.[0]?.Instances?.[0]?.State?.Name;
}

/** Polls the source until `done` or `limitMs` passes; delayed messages are waited for in short sleeps. */
async function drain(sources: SqsEventSource[], done: () => Promise<boolean>, limitMs = 20_000): Promise<boolean> {
  const end = Date.now() + limitMs;
  while (Date.now() < end) {
    for (const s of sources) await s.pollOnce();
    if (await done()) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

function spotWarning(instanceId: string) {
  const event = JSON.parse(readFixture('spot-interruption.json')) as Record<string, unknown>;
  return {
    ...event,
    time: new Date().toISOString(),
    resources: [`arn:aws:ec2:us-east-1:${aws.account}:instance/${instanceId}`],
    detail: { 'instance-id': instanceId, 'instance-action': 'terminate' },
  };
}

describe('interruption on the emulator', () => {
  it('takes a spot warning from SQS to a terminated instance and a Terminated claim', async () => {
    const claim = await launchedClaim('default-int01');
    const instanceId = claim.instanceId as string;
    const interruption = createInterruption(() => ports, observability('interruption'));
    const termination = createTermination(() => ports, observability('termination'));
    const sources = [
      new SqsEventSource(aws.sqs, queues.interruption, (e: SQSEvent) => interruption(e, context('interruption'))),
      new SqsEventSource(aws.sqs, queues.termination, (e: SQSEvent) => termination(e, context('termination')), {
        batchSize: 5,
      }),
    ];
    await aws.sqs.send(
      new SendMessageCommand({ QueueUrl: queues.interruption, MessageBody: JSON.stringify(spotWarning(instanceId)) }),
    );
    const first = await sources[0]?.pollOnce();
    expect(first).toEqual({ received: 1, failed: 0 });
    const draining = await store.get(claim.name);
    expect(draining?.state).toBe('Draining');
    expect(draining?.disruption?.cause).toBe('Interrupted');
    // The offering is cached as unavailable for the ICE TTL.
    expect(await store.listUnavailable(Date.now())).toEqual([
      expect.objectContaining({ instanceType: 'm5.large', zone: claim.zone, reason: 'SpotInterruption' }),
    ]);
    const ended = await drain(sources, async () => (await store.get(claim.name))?.state === 'Terminated');
    expect(ended).toBe(true);
    expect(await instanceState(instanceId)).toMatch(/shutting-down|terminated/);
  });

  it('ignores a warning for an instance outside the cluster and deletes the message', async () => {
    const foreign = await aws.ec2.send(
      new RunInstancesCommand({ ImageId: net.images.amd64, MinCount: 1, MaxCount: 1, InstanceType: 'm5.large' }),
    );
    const id = foreign.Instances?.[0]?.InstanceId as string;
    const interruption = createInterruption(() => ports, observability('interruption'));
    const source = new SqsEventSource(aws.sqs, queues.interruption, (e: SQSEvent) =>
      interruption(e, context('interruption')),
    );
    await aws.sqs.send(
      new SendMessageCommand({ QueueUrl: queues.interruption, MessageBody: JSON.stringify(spotWarning(id)) }),
    );
    expect(await source.pollOnce()).toEqual({ received: 1, failed: 0 });
    expect(await source.pollOnce()).toEqual({ received: 0, failed: 0 });
    expect(await instanceState(id)).toBe('running');
  });
});

describe('capacity reservation interruption on the emulator', () => {
  it('takes an interruptible reservation warning from SQS to a draining claim and a reservation refused for launches', async () => {
    // moto has no capacity reservations: the claim records the reservation its launch went into, as the AWS provider
    // writes it, and the instance behind it is a plain moto instance.
    const launched = await launchedClaim('default-icr01');
    const claim = await store.update(launched, {
      capacityType: 'reserved',
      capacityReservation: { id: 'cr-0a1b2c3d4e5f60009', type: 'default', interruptible: true },
    });
    const interruption = createInterruption(() => ports, observability('interruption'));
    const source = new SqsEventSource(aws.sqs, queues.interruption, (e: SQSEvent) =>
      interruption(e, context('interruption')),
    );
    const event = JSON.parse(readFixture('capacity-reservation-interruption.json')) as Record<string, unknown>;
    const id = claim.instanceId as string;
    const body = {
      ...event,
      time: new Date().toISOString(),
      resources: [`arn:aws:ec2:us-east-1:${aws.account}:instance/${id}`],
      detail: { 'instance-id': id, 'instance-action': 'terminate' },
    };
    await aws.sqs.send(new SendMessageCommand({ QueueUrl: queues.interruption, MessageBody: JSON.stringify(body) }));
    expect(await source.pollOnce()).toEqual({ received: 1, failed: 0 });
    expect(await store.get(claim.name)).toMatchObject({
      state: 'Draining',
      disruption: { cause: 'Interrupted', detail: 'capacity reservation interruption warning' },
    });
    expect(await store.listUnavailable(Date.now())).toContainEqual(
      expect.objectContaining({
        capacityType: 'reserved',
        reservationId: 'cr-0a1b2c3d4e5f60009',
        reason: 'CapacityReservationInterruption',
      }),
    );
  });
});

describe('garbage collection on the emulator', () => {
  it('terminates leaked instances found by tag, keeps owned and foreign ones, fails claims whose instance is gone', async () => {
    const owned = await launchedClaim('default-gc001');
    const gone = await launchedClaim('default-gc002');
    await cloud.delete(gone.instanceId as string);
    // A leak: launched for a claim the store never recorded (a Lambda killed between CreateFleet and the write).
    const fleetLaunch = await cloud.create({
      claim: nodeClaim({ name: 'default-leak1', uid: `uid-leak-${aws.account}` }),
      nodePool: nodePool(),
      nodeClass: ec2NodeClass({ amiSelectorTerms: [{ id: net.images.amd64 }], role: net.role }),
      instanceTypes: [makeInstanceType('m5.large', { zones: ['us-east-1a'] })],
    });
    // GC terminates only what Karpless provably launched: the stamp of its launch template (docs/aws.md
    // ("Garbage collection")), which moto puts on RunInstances only.
    const leaked = { instanceId: await relaunchStamped(aws.ec2, cluster, fleetLaunch.instanceId) };
    const untagged = await aws.ec2.send(
      new RunInstancesCommand({ ImageId: net.images.amd64, MinCount: 1, MaxCount: 1, InstanceType: 'm5.large' }),
    );
    const foreignId = untagged.Instances?.[0]?.InstanceId as string;

    const gc = createGc(() => ports, observability('gc'));
    const tick = { v: 1, cluster, kind: 'GarbageCollect', at: new Date().toISOString() };
    const out = (await gc(tick, context('gc'))) as GcOutput;
    expect(out.gc.terminatedInstances).toEqual([leaked.instanceId]);
    expect(out.gc.failedClaims).toEqual([gone.name]);
    expect(out.gc.nodePoolDeleted).toEqual([]);
    expect(await instanceState(leaked.instanceId)).toMatch(/shutting-down|terminated/);
    expect(await instanceState(owned.instanceId as string)).toMatch(/pending|running/);
    expect(await instanceState(foreignId)).toBe('running');
    expect((await store.get(gone.name))?.state).toBe('Failed');
  });
});

describe('capacity reservation capacity type on the emulator', () => {
  it('demotes a reserved claim whose instance EC2 describes with no reservation, on a GC tick', async () => {
    // moto has no capacity reservations, so its instances never carry one: exactly what DescribeInstances reports once
    // a reservation has expired or been cancelled (the reserved side is tested on the simulator,
    // test/karpenter/capacity/capacity-type.test.ts).
    const launched = await launchedClaim('default-odcr1');
    const claim = await store.update(launched, {
      capacityType: 'reserved',
      capacityReservation: { id: 'cr-0a1b2c3d4e5f60001', type: 'default' },
      labels: {
        'karpenter.sh/capacity-type': 'reserved',
        'karpenter.k8s.aws/capacity-reservation-id': 'cr-0a1b2c3d4e5f60001',
        'karpenter.k8s.aws/capacity-reservation-type': 'default',
      },
    });
    const gc = createGc(() => ports, observability('gc'));
    const tick = { v: 1, cluster, kind: 'GarbageCollect', at: new Date().toISOString() };
    const out = (await gc(tick, context('gc'))) as GcOutput;
    expect(out.capacityTypes.demoted).toEqual([claim.name]);
    const stored = await store.get(claim.name);
    expect(stored?.capacityType).toBe('on-demand');
    expect(stored?.capacityReservation).toBeUndefined();
    expect(stored?.labels).toEqual({ 'karpenter.sh/capacity-type': 'on-demand' });
    expect(((await gc(tick, context('gc'))) as GcOutput).capacityTypes.demoted).toEqual([]);
  });
});
