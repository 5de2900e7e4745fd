// The simulator's capacity reservation input (docs/scenarios.md, Capacity reservations) end to end: reservations are
// preferred while they have room, the rest falls back to on-demand, and a capacity block's node drains 40 minutes
// before the block ends (Karpenter's capacityreservation.expiration controller).
import { describe, expect, it } from 'vitest';
import {
  LabelCapacityReservationId,
  LabelCapacityReservationType,
  LabelCapacityType,
} from '../../../shared/api/labels';
import { loadScenario } from '../../../shared/sim/scenario/parse';
import {
  allClaims,
  apply,
  deployment,
  driftReasons,
  liveClaims,
  MINUTE,
  nodeClass,
  nodePool,
  run,
  scenario,
  scenarioProblems,
  step,
} from '../../../testkit/karpenter';

describe('examples/scenarios/capacity-reservations.yaml', () => {
  it('fills the reservations first, falls back to on-demand, and drains the capacity block 40 minutes before its end', async () => {
    const r = await run(await loadScenario('examples/scenarios/capacity-reservations.yaml'));
    const claims = await allClaims(r);
    const first = claims.slice(0, 3);
    expect(first.map((c) => [c.capacityType, c.capacityReservation?.id]).sort()).toEqual([
      ['on-demand', undefined],
      ['reserved', 'cr-0a1b2c3d4e5f60001'],
      ['reserved', 'cr-0a1b2c3d4e5f60002'],
    ]);
    const block = claims.find((c) => c.capacityReservation?.type === 'capacity-block');
    expect(block?.state).toBe('Terminated');
    expect(block?.disruption).toMatchObject({
      cause: 'Interrupted',
      detail: expect.stringMatching(/^capacity block /),
    });
    const lead = Date.parse(block?.capacityReservation?.endTime ?? '') - Date.parse(block?.disruption?.at ?? '');
    // Drained on the first sweep at or after 40 minutes before the end (sweeps run every few minutes).
    expect(lead).toBeLessThanOrEqual(40 * MINUTE);
    expect(lead).toBeGreaterThan(30 * MINUTE);
    const labels = (await r.world.cluster.listNodes()).map((n) => [
      n.metadata.labels?.[LabelCapacityReservationId],
      n.metadata.labels?.[LabelCapacityReservationType],
    ]);
    expect(labels).toContainEqual(['cr-0a1b2c3d4e5f60001', 'default']);
    expect(await r.world.cluster.listPendingPods()).toEqual([]);
  });

  it('names the field of a bad capacityReservation step', async () => {
    const text = `apiVersion: karpless.dev/v1alpha1
kind: Scenario
metadata: {name: t}
spec:
  until: 1h
  steps:
    - at: 0s
      capacityReservation: {id: odcr-1, instanceType: m5.large, availabilityZone: us-east-1a, instanceCount: 0, reservationType: capacity-block}
`;
    expect(await scenarioProblems(text)).toEqual([
      'scen.yaml#1 Scenario/t: spec.steps[0].capacityReservation.id: "odcr-1" does not match ^cr-[0-9a-z]+$',
      expect.stringMatching(/^scen\.yaml#1 Scenario\/t: spec\.steps\[0\]\.capacityReservation\.instanceCount: /),
      'scen.yaml#1 Scenario/t: spec.steps[0].capacityReservation.endsAfter: required for a capacity-block: how long after this step the block ends',
    ]);
  });
});

const reservationDoc = (id: string, count: number) => ({
  apiVersion: 'karpless.dev/v1alpha1',
  kind: 'CapacityReservation',
  metadata: { name: id },
  spec: { id, instanceType: 'm5.large', availabilityZone: 'us-east-1a', instanceCount: count, tags: { team: 'ml' } },
});

describe('CapacityReservationDrift in a scenario', () => {
  it('replaces only the node whose reservation the EC2NodeClass stops selecting, into the one it selects now', async () => {
    const r = await run(
      scenario(40 * MINUTE, [
        step(
          0,
          apply(
            reservationDoc('cr-0a1', 1),
            reservationDoc('cr-0b2', 1),
            nodeClass({ capacityReservationSelectorTerms: [{ id: 'cr-0a1' }] }),
            nodePool({ types: ['m5.large'], capacityTypes: ['reserved', 'on-demand'], consolidateAfter: 'Never' }),
            deployment('train', 2, { cpu: '1500m' }),
          ),
        ),
        step(10 * MINUTE, {
          type: 'patch',
          target: { kind: 'EC2NodeClass', namespace: '', name: 'default' },
          mergePatch: { spec: { capacityReservationSelectorTerms: [{ id: 'cr-0b2' }] } },
        }),
      ]),
    );
    const claims = await allClaims(r);
    const first = claims.slice(0, 2);
    expect(first.map((c) => [c.capacityType, c.capacityReservation?.id]).sort()).toEqual([
      ['on-demand', undefined],
      ['reserved', 'cr-0a1'],
    ]);
    expect(await driftReasons(r)).toEqual([expect.stringMatching(/^CapacityReservationDrift: .*cr-0a1/)]);
    const live = await liveClaims(r);
    expect(live.map((c) => [c.capacityType, c.capacityReservation?.id]).sort()).toEqual([
      ['on-demand', undefined],
      ['reserved', 'cr-0b2'],
    ]);
    // The on-demand node is the one from the start: changing the terms did not drift it.
    expect(live.map((c) => c.name)).toContain(first.find((c) => c.capacityType === 'on-demand')?.name);
    expect(await r.world.cluster.listPendingPods()).toEqual([]);
  });
});

describe('a capacity reservation that ends, in a scenario (capacityreservation.capacitytype)', () => {
  const ending = (until: number) =>
    run(
      scenario(until, [
        step(
          0,
          apply(
            { ...reservationDoc('cr-0c3', 1), spec: { ...reservationDoc('cr-0c3', 1).spec, endsAfter: '1h' } },
            nodeClass({ capacityReservationSelectorTerms: [{ id: 'cr-0c3' }] }),
            nodePool({ types: ['m5.large'], capacityTypes: ['reserved', 'on-demand'], consolidateAfter: 'Never' }),
            deployment('train', 1, { cpu: '1500m' }),
          ),
        ),
      ]),
    );
  const nodeOf = async (r: Awaited<ReturnType<typeof ending>>, name: string | undefined) =>
    (await r.world.cluster.listNodes()).find((n) => n.metadata.name === name)?.metadata.labels ?? {};

  it('keeps the node reserved while the reservation lasts, and relabels it on-demand at the first GC tick after', async () => {
    const before = await ending(55 * MINUTE);
    const [held] = await liveClaims(before);
    expect([held?.capacityType, held?.capacityReservation?.id]).toEqual(['reserved', 'cr-0c3']);
    expect(await nodeOf(before, held?.nodeName)).toMatchObject({
      [LabelCapacityType]: 'reserved',
      [LabelCapacityReservationId]: 'cr-0c3',
    });

    const after = await ending(62 * MINUTE);
    const live = await liveClaims(after);
    // The same node runs on, now on-demand: nothing was replaced.
    expect(live.map((c) => [c.name, c.capacityType, c.capacityReservation])).toEqual([
      [held?.name, 'on-demand', undefined],
    ]);
    const labels = await nodeOf(after, live[0]?.nodeName);
    expect(labels[LabelCapacityType]).toBe('on-demand');
    expect(labels).not.toHaveProperty(LabelCapacityReservationId);
    expect(labels).not.toHaveProperty(LabelCapacityReservationType);
    expect(await after.world.cluster.listPendingPods()).toEqual([]);
  });
});
