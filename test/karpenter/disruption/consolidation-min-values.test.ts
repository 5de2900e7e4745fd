// kubernetes-sigs/karpenter pkg/controllers/disruption/consolidation_test.go, the minValues cases: the price filter
// a replacement's instance types go through must leave the NodePool's minValues met, and spot-to-spot keeps the
// cheapest max(15, what minValues needs) types. On the pure sweep, since each case sets its own types and prices.
import { describe, expect, it } from 'vitest';
import type { NodeSelectorRequirementWithMinValues } from '../../../shared/api/karpenter';
import type { CapacityType, InstanceType } from '../../../shared/catalog/types';
import { planDisruption } from '../../../shared/disruption/plan';
import type { DisruptionOptions, DisruptionPlan } from '../../../shared/disruption/types';
import { disruptionInput, node, pool } from '../../../testkit/disruption';
import { instanceType } from '../../../testkit/instance-types';

const ZONE = 'us-east-1a';
const INSTANCE_TYPE = 'node.kubernetes.io/instance-type';

/** A 2-vCPU type with one offering of each capacity type named, in one zone. */
function priced(name: string, prices: Partial<Record<CapacityType, number>>, cpu = 2000, allocatableCpu = cpu) {
  return instanceType({
    name,
    vcpu: cpu / 1000,
    memoryMiB: 8192,
    capacity: { cpu, memory: 8192 * 2 ** 20, pods: 110 },
    allocatable: { cpu: allocatableCpu, memory: 8192 * 2 ** 20, pods: 110 },
    offerings: Object.entries(prices).map(([capacityType, price]) => ({
      zone: ZONE,
      capacityType: capacityType as CapacityType,
      price,
      available: true,
    })),
  });
}

/** Karpenter's 18 types priced 1.00, 1.10, ... 2.70 an hour (for the capacity type given). */
const eighteen = (capacityType: CapacityType): InstanceType[] =>
  Array.from({ length: 18 }, (_, i) => priced(`fake-it-${i}`, { [capacityType]: 1 + i * 0.1 }));

const exists = (minValues: number): NodeSelectorRequirementWithMinValues => ({
  key: INSTANCE_TYPE,
  operator: 'Exists',
  minValues,
});

/** One node of `current` holding one small pod, alone in its pool: consolidation can only replace it. */
function planFor(
  types: InstanceType[],
  current: InstanceType,
  o: {
    capacityType: CapacityType;
    requirements: NodeSelectorRequirementWithMinValues[];
    options?: DisruptionOptions;
  },
): DisruptionPlan {
  const p = pool({ capacityTypes: [o.capacityType], requirements: o.requirements });
  const n = node('candidate', { pool: p, instanceType: current, capacityType: o.capacityType, cpus: ['500m'] });
  return planDisruption(
    disruptionInput([n], {
      nodePools: [p],
      instanceTypes: new Map([[p.metadata.name, types]]),
      options: { spotToSpotConsolidation: true, ...o.options },
    }),
  );
}

const optionNames = (plan: DisruptionPlan): string[] =>
  plan.commands.flatMap((c) => c.replacements.flatMap((r) => r.instanceTypeOptions.map((t) => t.name)));

describe('consolidation_test.go Replace (minValues)', () => {
  for (const [entry, capacityType] of [
    ['if the candidate is on-demand node', 'on-demand'],
    ['if the candidate is spot node', 'spot'],
  ] as const) {
    it(`Consolidation should fail if filterByPrice breaks the minimum requirement from the NodePools. (${entry})`, () => {
      const types = eighteen(capacityType);
      // The 16th cheapest: 15 types are cheaper, enough for spot-to-spot, but minValues asks for 16.
      const plan = planFor(types, types[15] as InstanceType, { capacityType, requirements: [exists(16)] });
      expect(plan.commands).toEqual([]);
      expect(plan.rejected[0]?.blockers[0]).toMatch(
        /minValues requirement is not met for label\(s\) node\.kubernetes\.io\/instance-type \(15 of 16\)/,
      );
    });
  }

  it('replaces when the cheaper types meet minValues, launching with enough of them to keep minValues met', () => {
    const types = eighteen('on-demand');
    const plan = planFor(types, types[15] as InstanceType, { capacityType: 'on-demand', requirements: [exists(15)] });
    expect(plan.commands).toHaveLength(1);
    // The anti-churn narrowing alone would keep only the 1.00 type; minValues widens it to the 15 cheaper ones.
    expect(optionNames(plan).sort()).toEqual(
      types
        .slice(0, 15)
        .map((t) => t.name)
        .sort(),
    );
    expect(plan.commands[0]?.replacements[0]?.cheapest.instanceType).toBe('fake-it-0');
  });

  it('spot to spot consolidation should consider the max of default and minimum number of instanceTypeOptions from minValues in requirement for truncation if minimum number of instanceTypeOptions from minValues in requirement is greater than 15.', () => {
    const types = spotLadder();
    const plan = planFor(types, types[17] as InstanceType, { capacityType: 'spot', requirements: [exists(16)] });
    expect(plan.commands).toHaveLength(1);
    const names = optionNames(plan);
    expect(names).toHaveLength(16);
    expect(names).toContain('fake-it-16');
    expect(names).not.toContain('fake-it-17');
    expect(names.sort()).toEqual(cheapestSpot(types, 16));
    expect(plan.commands[0]?.replacements[0]?.requirements).toContainEqual({
      key: 'karpenter.sh/capacity-type',
      operator: 'In',
      values: ['spot'],
    });
  });

  it('spot to spot consolidation should consider the default for truncation if minimum number of instanceTypeOptions from minValues in requirement is less than 15.', () => {
    const types = spotLadder();
    const plan = planFor(types, types[17] as InstanceType, { capacityType: 'spot', requirements: [exists(10)] });
    expect(plan.commands).toHaveLength(1);
    const names = optionNames(plan);
    expect(names).toHaveLength(15);
    expect(names).toContain('fake-it-16');
    expect(names.sort()).toEqual(cheapestSpot(types, 15));
  });

  it("should handle failing filterOutSameInstanceType correctly (without a panic) when minValues isn't satisfied", () => {
    const current = priced('current-on-demand', { 'on-demand': 0.5 }, 5000, 4000);
    const other = priced('other-on-demand', { 'on-demand': 0.4 }, 5000, 4000);
    const p = pool({ capacityTypes: ['on-demand'], requirements: [exists(2)] });
    const nodes = [['2'], ['2'], ['2', '2']].map((cpus, i) => node(`n${i}`, { pool: p, instanceType: current, cpus }));
    const plan = planDisruption(
      disruptionInput(nodes, { nodePools: [p], instanceTypes: new Map([[p.metadata.name, [current, other]]]) }),
    );
    // One of the first two nodes goes, its pod moving onto the other; the third stays.
    expect(plan.commands).toHaveLength(1);
    const gone = plan.commands.flatMap((c) => c.candidates.map((x) => x.name));
    expect(gone).toHaveLength(1);
    expect(['n0', 'n1']).toContain(gone[0]);
  });
});

describe('consolidation_test.go MinValuesPolicy', () => {
  it('should not consolidate a node by relaxing min values when policy is set to BestEffort', () => {
    const least = priced('least-expensive', { 'on-demand': 0.1 });
    const most = priced('most-expensive', { 'on-demand': 1 });
    const requirements = [
      { key: INSTANCE_TYPE, operator: 'In' as const, values: [least.name, most.name], minValues: 3 },
    ];
    const plan = planFor([least, most], most, {
      capacityType: 'on-demand',
      requirements,
      options: { minValuesPolicy: 'BestEffort' },
    });
    expect(plan.commands).toEqual([]);
    // BestEffort lowered minValues to the 2 types the solve had; the price filter leaves 1.
    expect(plan.rejected[0]?.blockers[0]).toMatch(
      /minValues requirement is not met for label\(s\) node\.kubernetes\.io\/instance-type \(1 of 2\)/,
    );
  });
});

/** Karpenter's spot ladder: 18 spot types at 1.00 + 0.1 i, with the 17th forced to the cheapest (0.001). */
function spotLadder(): InstanceType[] {
  return Array.from({ length: 18 }, (_, i) => priced(`fake-it-${i}`, { spot: i === 16 ? 0.001 : 1 + i * 0.1 }));
}

function cheapestSpot(types: InstanceType[], n: number): string[] {
  const price = (t: InstanceType) => t.offerings.find((o) => o.capacityType === 'spot')?.price ?? 0;
  return [...types]
    .sort((a, b) => price(a) - price(b))
    .slice(0, n)
    .map((t) => t.name)
    .sort();
}
