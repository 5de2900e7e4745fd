// Behaviours every CloudProvider must have, whatever cloud is behind it. Each implementation runs this suite with a
// fixture: the AWS provider over aws-sdk-client-mock (cloud-provider.aws.test.ts), the simulated
// cloud over its own state (shared/sim).
import { describe, expect, it } from 'vitest';
import type { EC2NodeClass, NodePool } from '../../shared/api/karpenter';
import type { NodeClaim } from '../../shared/api/nodeclaim';
import type { CapacityType, InstanceType } from '../../shared/catalog/types';
import { InsufficientCapacityError } from '../../shared/errors';
import type { CloudInstance, CloudProvider } from '../../shared/ports';

export interface OfferingRef {
  instanceType: string;
  zone: string;
  capacityType: CapacityType;
}

export interface CloudProviderFixture {
  provider: CloudProvider;
  nodePool: NodePool;
  nodeClass: EC2NodeClass;
  /** Every later launch of this offering fails for lack of capacity (InsufficientInstanceCapacity). */
  injectInsufficientCapacity(offering: OfferingRef): void | Promise<void>;
  /** Instance types to offer a claim (names present in getInstanceTypes); defaults to a few common ones. */
  optionNames?: string[];
  cleanup?(): void | Promise<void>;
}

const DEFAULT_OPTIONS = ['m5.large', 'c5.large', 'm6i.large', 'm5.xlarge'];
let seq = 0;

export function contractClaim(f: CloudProviderFixture, overrides: Partial<NodeClaim> = {}): NodeClaim {
  const name = overrides.name ?? `contract-${++seq}-${Math.random().toString(36).slice(2, 7)}`;
  return {
    name,
    uid: `uid-${name}`,
    cluster: 'contract',
    nodePool: f.nodePool.metadata.name,
    nodeClass: f.nodeClass.metadata.name,
    state: 'Pending',
    version: 1,
    requirements: [],
    instanceTypeOptions: [],
    labels: { 'karpenter.sh/nodepool': f.nodePool.metadata.name },
    taints: [],
    startupTaints: [],
    requests: { cpu: 500 },
    nominatedPods: [],
    createdAt: new Date(0).toISOString(),
    stateTimes: {},
    ...overrides,
  };
}

async function options(f: CloudProviderFixture, only?: string[]): Promise<InstanceType[]> {
  const names = only ?? f.optionNames ?? DEFAULT_OPTIONS;
  const all = await f.provider.getInstanceTypes(f.nodeClass);
  const picked = names.flatMap((n) => all.filter((t) => t.name === n && t.offerings.some((o) => o.available)));
  if (picked.length === 0) throw new Error(`contract fixture: none of ${names.join(', ')} is offered`);
  return picked;
}

/** Launches a fresh contract claim over `types`. */
function launchNew(f: CloudProviderFixture, types: InstanceType[]): Promise<CloudInstance> {
  return f.provider.create({
    claim: contractClaim(f),
    nodePool: f.nodePool,
    nodeClass: f.nodeClass,
    instanceTypes: types,
  });
}

export function describeCloudProviderContract(name: string, makeProvider: () => Promise<CloudProviderFixture>): void {
  describe(`CloudProvider contract: ${name}`, () => {
    async function withFixture(body: (f: CloudProviderFixture) => Promise<void>): Promise<void> {
      const f = await makeProvider();
      try {
        await body(f);
      } finally {
        await f.cleanup?.();
      }
    }

    it('create returns a running-or-pending instance that matches one of the options', () =>
      withFixture(async (f) => {
        const types = await options(f);
        const claim = contractClaim(f);
        const instance = await f.provider.create({
          claim,
          nodePool: f.nodePool,
          nodeClass: f.nodeClass,
          instanceTypes: types,
        });
        const type = types.find((t) => t.name === instance.instanceType);
        expect(type, `launched ${instance.instanceType}, not an option`).toBeDefined();
        expect(
          type?.offerings.some(
            (o) => o.available && o.zone === instance.zone && o.capacityType === instance.capacityType,
          ),
        ).toBe(true);
        expect(instance.instanceId).not.toBe('');
        expect(instance.providerID).toContain(instance.instanceId);
        expect(['pending', 'running']).toContain(instance.state);
        expect(instance.tags['karpenter.sh/nodeclaim']).toBe(claim.name);
        expect(instance.tags['karpenter.sh/nodepool']).toBe(f.nodePool.metadata.name);
      }));

    it('a replayed claim uid returns the same instance and launches no second one', () =>
      withFixture(async (f) => {
        const types = await options(f);
        const claim = contractClaim(f);
        const req = { claim, nodePool: f.nodePool, nodeClass: f.nodeClass, instanceTypes: types };
        const first = await f.provider.create(req);
        const again = await f.provider.create({ ...req, claim: { ...claim, version: claim.version + 1 } });
        expect(again.instanceId).toBe(first.instanceId);
        const mine = (await f.provider.list()).filter((i) => i.tags['karpenter.sh/nodeclaim'] === claim.name);
        expect(mine.map((i) => i.instanceId)).toEqual([first.instanceId]);
      }));

    it('list and get see created instances', () =>
      withFixture(async (f) => {
        const types = await options(f);
        const a = await launchNew(f, types);
        const b = await launchNew(f, types);
        expect(a.instanceId).not.toBe(b.instanceId);
        const listed = (await f.provider.list()).map((i) => i.instanceId);
        expect(listed).toEqual(expect.arrayContaining([a.instanceId, b.instanceId]));
        const got = await f.provider.get(a.instanceId);
        expect(got).toMatchObject({
          instanceId: a.instanceId,
          instanceType: a.instanceType,
          zone: a.zone,
          capacityType: a.capacityType,
        });
      }));

    it('delete is idempotent, and a deleted instance leaves list', () =>
      withFixture(async (f) => {
        const types = await options(f);
        const a = await launchNew(f, types);
        await f.provider.delete(a.instanceId);
        await f.provider.delete(a.instanceId);
        await f.provider.delete('i-0000000000nonexistent');
        expect((await f.provider.list()).map((i) => i.instanceId)).not.toContain(a.instanceId);
        const got = await f.provider.get(a.instanceId);
        expect(got === undefined || got.state === 'terminated' || got.state === 'shutting-down').toBe(true);
        expect(await f.provider.get('i-0000000000nonexistent')).toBeUndefined();
      }));

    it('insufficient capacity surfaces as InsufficientCapacityError naming the refused offerings', () =>
      withFixture(async (f) => {
        const [type] = await options(f);
        if (!type) throw new Error('no option');
        for (const o of type.offerings) {
          await f.injectInsufficientCapacity({ instanceType: type.name, zone: o.zone, capacityType: o.capacityType });
        }
        const err = await f.provider
          .create({ claim: contractClaim(f), nodePool: f.nodePool, nodeClass: f.nodeClass, instanceTypes: [type] })
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(InsufficientCapacityError);
        const refused = (err as InsufficientCapacityError).offerings;
        expect(refused.length).toBeGreaterThan(0);
        for (const o of refused) {
          expect(o.instanceType).toBe(type.name);
          expect(type.offerings.some((x) => x.zone === o.zone && x.capacityType === o.capacityType)).toBe(true);
        }
        expect((await f.provider.list()).filter((i) => i.instanceType === type.name)).toEqual([]);
      }));

    it('getInstanceTypes reflects the kubelet maxPods of the EC2NodeClass', () =>
      withFixture(async (f) => {
        const limited: EC2NodeClass = { ...f.nodeClass, spec: { ...f.nodeClass.spec, kubelet: { maxPods: 17 } } };
        const types = await f.provider.getInstanceTypes(limited);
        expect(types.length).toBeGreaterThan(0);
        for (const t of types) {
          expect(t.capacity.pods, t.name).toBe(17);
          expect(t.allocatable.pods, t.name).toBe(17);
        }
        const defaults = await f.provider.getInstanceTypes(f.nodeClass);
        expect(defaults.some((t) => t.capacity.pods !== 17)).toBe(true);
      }));
  });
}
