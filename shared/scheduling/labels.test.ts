import { describe, expect, it } from 'vitest';
import { restrictedLabelReason } from './labels';

describe('restricted labels', () => {
  it('allows well-known and custom labels, rejects system domains', () => {
    expect(restrictedLabelReason('topology.kubernetes.io/zone')).toBeUndefined();
    expect(restrictedLabelReason('karpenter.k8s.aws/instance-family')).toBeUndefined();
    expect(restrictedLabelReason('team')).toBeUndefined();
    expect(restrictedLabelReason('example.com/team')).toBeUndefined();
    expect(restrictedLabelReason('node-restriction.kubernetes.io/x')).toBeUndefined();
    expect(restrictedLabelReason('kubernetes.io/hostname')).toMatch(/restricted/);
    expect(restrictedLabelReason('karpenter.sh/anything')).toMatch(/restricted/);
    expect(restrictedLabelReason('sub.k8s.io/x')).toMatch(/restricted/);
  });
});
