import { describe, expect, it } from 'vitest';
import { fixtureInstanceTypes } from '../../testkit/instance-types';
import { cheapestOffering, typeIncompatibility } from './instancetypes';
import { Requirements } from './requirements';

const types = fixtureInstanceTypes();
const m5it = types.find((t) => t.name === 'm5.large')!;
const g4it = types.find((t) => t.name === 'g4dn.xlarge')!;
const m5 = { it: m5it, offerings: m5it.offerings };
const g4 = { it: g4it, offerings: g4it.offerings };

describe('instance-type checks', () => {
  it('matches labels, offerings and undefined instance labels', () => {
    expect(typeIncompatibility(m5, Requirements.fromLabels({ 'kubernetes.io/arch': 'amd64' }))).toBeUndefined();
    expect(typeIncompatibility(m5, Requirements.fromLabels({ 'kubernetes.io/arch': 'arm64' }))).toMatch(/arch=amd64/);
    expect(
      typeIncompatibility(m5, Requirements.from([{ key: 'karpenter.k8s.aws/instance-gpu-name', operator: 'Exists' }])),
    ).toMatch(/not defined/);
    expect(
      typeIncompatibility(
        m5,
        Requirements.from([{ key: 'karpenter.k8s.aws/instance-gpu-name', operator: 'DoesNotExist' }]),
      ),
    ).toBeUndefined();
    expect(
      typeIncompatibility(g4, Requirements.fromLabels({ 'karpenter.k8s.aws/instance-gpu-name': 't4' })),
    ).toBeUndefined();
    expect(typeIncompatibility(m5, Requirements.fromLabels({ 'topology.kubernetes.io/zone': 'us-west-2a' }))).toMatch(
      /no available offering/,
    );
    // Custom labels are the NodePool's business, not the type's.
    expect(typeIncompatibility(m5, Requirements.fromLabels({ team: 'x' }))).toBeUndefined();
  });

  it('picks the offering CreateFleet lowest-price would', () => {
    const any = cheapestOffering(m5.offerings, new Requirements(), true);
    expect(any?.capacityType).toBe('spot');
    expect(any?.zone).toBe('us-east-1a');
    const zoneC = cheapestOffering(
      m5.offerings,
      Requirements.fromLabels({ 'topology.kubernetes.io/zone': 'us-east-1c' }),
      true,
    );
    expect(zoneC?.zone).toBe('us-east-1c');
    expect(cheapestOffering(m5.offerings, new Requirements(), false)?.capacityType).toBe('spot');
    const od = Requirements.fromLabels({ 'karpenter.sh/capacity-type': 'on-demand' });
    expect(cheapestOffering(m5.offerings, od, true)?.price).toBe(0.096);
  });
});
