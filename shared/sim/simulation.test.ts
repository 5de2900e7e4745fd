import { describe, expect, it } from 'vitest';
import { pod as buildPod } from '../../testkit/builders';
import { fixtureNodeClass, fixtureNodePool, fixtureType } from '../../testkit/sim-fixtures';
import type { Node, Pod } from '../api/kube';
import { ValidationError } from '../errors';
import type { PlannedNodeClaim, SchedulingInput, SchedulingResult } from '../scheduling/types';
import { runSimulation, type SimulationEngine } from './simulation';

const spotA = fixtureType('m5.large', 2, [
  { zone: 'us-east-1a', capacityType: 'spot', price: 0.03 },
  { zone: 'us-east-1b', capacityType: 'spot', price: 0.02 },
  { zone: 'us-east-1a', capacityType: 'on-demand', price: 0.096 },
]);
// With a request: pods without one add a load-time warning (load-warnings.ts) these tests are not about.
const pod = (name: string, nodeName?: string): Pod =>
  buildPod({
    name,
    containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '100m' } } }],
    ...(nodeName ? { nodeName } : {}),
  });
const node: Node = {
  kind: 'Node',
  metadata: { name: 'n1', labels: {} },
  spec: {},
  status: { allocatable: { cpu: '2' } },
};

/** A stand-in solver: every pending pod on one claim in the zone the test asks for (per pass, when given a list;
 * the last zone repeats). */
function engine(zones: string | string[] = 'us-east-1a'): SimulationEngine & { inputs: SchedulingInput[] } {
  const inputs: SchedulingInput[] = [];
  const perPass = typeof zones === 'string' ? [zones] : zones;
  return {
    inputs,
    solve(input): SchedulingResult {
      inputs.push(input);
      const zone = perPass[Math.min(inputs.length, perPass.length) - 1] as string;
      const claim: PlannedNodeClaim = {
        name: 'general-1',
        nodePool: input.nodePools[0]!.metadata.name,
        nodeClass: 'default',
        requirements: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] }],
        minValuesRelaxed: false,
        instanceTypeOptions: [spotA],
        labels: {},
        taints: [],
        startupTaints: [],
        pods: input.pods,
        requests: {},
        daemonSetOverhead: {},
        cheapest: { instanceType: 'm5.large', zone, capacityType: 'spot', price: 0.03 },
      };
      return {
        nodeClaims: input.pods.length > 0 ? [claim] : [],
        existingNodes: (input.existingNodes ?? []).map((n) => ({ name: n.name, pods: [] })),
        unschedulable: [],
        warnings: [],
        stats: { pods: input.pods.length, durationMs: 1, relaxations: 0, timedOut: false },
      };
    },
    lowerBound: (pods) => pods.length * 0.01,
    instanceTypesFor: () => [spotA],
    defaultNodePool: () => ({
      nodePool: { ...fixtureNodePool, metadata: { name: 'default' } },
      nodeClass: fixtureNodeClass,
    }),
  };
}

describe('runSimulation', () => {
  it('launches each planned claim at the cheapest offering its requirements allow', async () => {
    const result = await runSimulation(
      { pods: [pod('a'), pod('b')], nodePools: [fixtureNodePool], nodeClasses: [fixtureNodeClass] },
      engine('us-east-1a'),
    );
    expect(result.nodeClaims).toHaveLength(1);
    // us-east-1b spot is cheaper, but the claim is pinned to us-east-1a.
    expect(result.nodeClaims[0]?.instance).toMatchObject({
      zone: 'us-east-1a',
      capacityType: 'spot',
      pricePerHour: 0.03,
    });
    expect(result.summary).toEqual({
      pods: 2,
      scheduledPods: 2,
      nodeClaims: 1,
      costPerHour: 0.03,
      lowerBoundPerHour: 0.02,
    });
    expect(result.defaultNodePool).toBeUndefined();
  });

  it('puts bound pods on their nodes, and treats a pod bound to an unknown node as pending with a warning', async () => {
    const e = engine();
    const result = await runSimulation(
      {
        pods: [pod('running', 'n1'), pod('lost', 'gone'), pod('new')],
        nodes: [node],
        nodePools: [fixtureNodePool],
        nodeClasses: [fixtureNodeClass],
      },
      e,
    );
    const input = e.inputs[0]!;
    expect(input.pods.map((p) => p.metadata.name)).toEqual(['lost', 'new']);
    expect(input.pods[0]?.spec.nodeName).toBeUndefined();
    expect(input.existingNodes?.[0]).toMatchObject({ name: 'n1', allocatable: { cpu: 2000 }, inflight: false });
    expect(input.existingNodes?.[0]?.pods.map((p) => p.metadata.name)).toEqual(['running']);
    expect(result.warnings).toEqual([expect.stringContaining('default/lost: spec.nodeName "gone"')]);
  });

  it('falls back to the default NodePool with a warning', async () => {
    const result = await runSimulation({ pods: [pod('a')], nodePools: [], nodeClasses: [] }, engine());
    expect(result.defaultNodePool).toBe('default');
    expect(result.warnings[0]).toMatch(/^no NodePool given: using the embedded default NodePool "default"/);
    expect(result.nodeClaims[0]?.plan.nodePool).toBe('default');
  });

  it('rejects a NodePool whose EC2NodeClass is missing', async () => {
    const run = runSimulation({ pods: [pod('a')], nodePools: [fixtureNodePool], nodeClasses: [] }, engine());
    await expect(run).rejects.toBeInstanceOf(ValidationError);
    await expect(run).rejects.toThrow(
      'NodePool/general: spec.template.spec.nodeClassRef.name: EC2NodeClass "default" not found',
    );
  });

  it('plans the pods of a claim dropped at launch again on the next pass, as the provisioner does', async () => {
    // The first plan asks for a zone with no offering, so the launch finds no capacity and drops the claim.
    const e = engine(['us-east-1z', 'us-east-1b']);
    const result = await runSimulation(
      { pods: [pod('a'), pod('b')], nodePools: [fixtureNodePool], nodeClasses: [fixtureNodeClass] },
      e,
    );
    expect(e.inputs.map((i) => i.pods.map((p) => p.metadata.name))).toEqual([
      ['a', 'b'],
      ['a', 'b'],
    ]);
    expect(result.unschedulable).toEqual([]);
    expect(result.nodeClaims).toHaveLength(1);
    expect(result.nodeClaims[0]?.instance).toMatchObject({ zone: 'us-east-1b', pricePerHour: 0.02 });
    expect(result.summary).toMatchObject({ pods: 2, scheduledPods: 2, nodeClaims: 1, costPerHour: 0.02 });
  });

  it('reports the pods of a claim that never finds capacity, with the reason, after a bounded number of passes', async () => {
    const e = engine('us-east-1z');
    const result = await runSimulation(
      { pods: [pod('a')], nodePools: [fixtureNodePool], nodeClasses: [fixtureNodeClass] },
      e,
    );
    expect(e.inputs).toHaveLength(20);
    expect(result.nodeClaims).toEqual([]);
    expect(result.unschedulable).toEqual([
      {
        pod: expect.objectContaining({ metadata: expect.objectContaining({ name: 'a' }) }),
        reason: expect.stringMatching(
          /^launch of general-[a-z0-9]{5} failed: insufficient capacity after 20 provisioning passes$/,
        ),
      },
    ]);
    expect(result.summary).toMatchObject({ pods: 1, scheduledPods: 0, nodeClaims: 0, costPerHour: 0 });
  });

  it('repeats instance ids for a seed', async () => {
    const ids = async (seed: number) =>
      (
        await runSimulation(
          { pods: [pod('a')], nodePools: [fixtureNodePool], nodeClasses: [fixtureNodeClass] },
          engine(),
          { seed },
        )
      ).nodeClaims[0]?.instance.instanceId;
    expect(await ids(3)).toBe(await ids(3));
    expect(await ids(3)).not.toBe(await ids(4));
  });
});
