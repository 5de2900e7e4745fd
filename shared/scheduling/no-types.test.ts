import { describe, expect, it } from 'vitest';
import { fixtureInstanceTypes } from '../../testkit/instance-types';
import type { InstanceType } from '../catalog/types';
import { whyNoInstanceTypes } from './no-types';
import { Requirements } from './requirements';

const types = fixtureInstanceTypes();
const fitsAll = () => true;
const why = (reqs: Requirements, raw: readonly InstanceType[] = types, fits: (it: InstanceType) => boolean = fitsAll) =>
  whyNoInstanceTypes(raw, reqs, 'default', fits);

describe('why a NodePool has no instance types', () => {
  it('says when the EC2NodeClass offers none, or EC2 refused every offering', () => {
    expect(why(new Requirements(), [])).toBe('its EC2NodeClass default offers no instance types');
    const refused = types.map((t) => ({ ...t, offerings: t.offerings.map((o) => ({ ...o, available: false })) }));
    expect(why(new Requirements(), refused)).toBe('every offering of its instance types was recently refused by EC2');
  });

  it('names the zone or capacity-type requirement that matches no offering, with what is offered', () => {
    expect(why(Requirements.fromLabels({ 'topology.kubernetes.io/zone': 'us-east-1z' }))).toMatch(
      /^topology\.kubernetes\.io\/zone \[us-east-1z\] matches no offering \(offered: us-east-1a, us-east-1b/,
    );
    expect(why(Requirements.from([{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['reserved'] }]))).toBe(
      'karpenter.sh/capacity-type [reserved] matches no offering (offered: on-demand, spot); reserved offerings ' +
        'come only from capacity reservations with room that the EC2NodeClass selects (capacityReservationSelectorTerms)',
    );
  });

  it('says when zone and capacity type each match but never on the same offering', () => {
    const onlySpotInA = types.map((t) => ({
      ...t,
      offerings: t.offerings.filter((o) => (o.zone === 'us-east-1a') === (o.capacityType === 'spot')),
    }));
    const reqs = Requirements.fromLabels({
      'topology.kubernetes.io/zone': 'us-east-1a',
      'karpenter.sh/capacity-type': 'on-demand',
    });
    expect(why(reqs, onlySpotInA)).toBe('no instance type is offered in the allowed zones and capacity types together');
  });

  it('names the label requirement no type has, or says the requirements only conflict together', () => {
    expect(why(Requirements.fromLabels({ 'node.kubernetes.io/instance-type': 'm5.largee' }))).toBe(
      'no instance type has node.kubernetes.io/instance-type [m5.largee]',
    );
    const together = Requirements.fromLabels({
      'node.kubernetes.io/instance-type': 'm5.large',
      'kubernetes.io/arch': 'arm64',
    });
    expect(why(together)).toBe(
      'no instance type meets all of node.kubernetes.io/instance-type [m5.large], kubernetes.io/arch [arm64]',
    );
  });

  it('blames the DaemonSets when they outgrow every type that is left', () => {
    const reqs = Requirements.fromLabels({ 'node.kubernetes.io/instance-type': 'm5.large' });
    expect(why(reqs, types, () => false)).toBe('its DaemonSets request more than any of its 1 instance types can hold');
  });
});
