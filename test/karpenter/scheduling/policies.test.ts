// Karpenter's operator settings MinValuesPolicy and PreferencePolicy, translated from
// pkg/controllers/provisioning/suite_test.go ("Ignore Preferences") and scheduling/instance_selection_test.go
// (minValues), run through the public `solve` with the options the provisioner passes from clusters.yaml `settings`.
import { describe, expect, it } from 'vitest';
import { nodePool, pod } from '../../../testkit/builders';
import { InstanceTypeLabel, Zone } from '../../../testkit/karpenter-scheduling';
import { claimOf, run, zoneOf } from '../../../testkit/solve';

describe('suite_test.go Provisioning Ignore Preferences (PreferencePolicy=Ignore)', () => {
  it('should ignore node affinity preferences', () => {
    const p = pod({
      cpu: '1',
      affinity: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 1, preference: { matchExpressions: [{ key: Zone, operator: 'In', values: ['us-east-1c'] }] } },
          ],
        },
      },
    });
    const np = nodePool({ requirements: [{ key: Zone, operator: 'In', values: ['us-east-1a', 'us-east-1c'] }] });
    const ignore = run({ nodePools: [np], pods: [p], options: { preferencePolicy: 'Ignore' } });
    // Without the preference the claim is not narrowed to us-east-1c: both zones stay open.
    const zones = claimOf(ignore, p)?.requirements.find((r) => r.key === Zone)?.values;
    expect(zones?.sort()).toEqual(['us-east-1a', 'us-east-1c']);
    const respect = run({ nodePools: [np], pods: [p] });
    expect(zoneOf(claimOf(respect, p))).toBe('us-east-1c');
  });

  it('should ignore topologySpreadConstraint preferences', () => {
    const labels = { app: 'foo' };
    const spread = {
      labels,
      cpu: '100m',
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: 'kubernetes.io/hostname',
          whenUnsatisfiable: 'ScheduleAnyway' as const,
          labelSelector: { matchLabels: labels },
        },
      ],
    };
    const pods = [pod(spread), pod(spread), pod(spread)];
    expect(run({ pods, options: { preferencePolicy: 'Ignore' } }).nodeClaims).toHaveLength(1);
    expect(run({ pods }).nodeClaims).toHaveLength(3);
  });
});

describe('instance_selection_test.go MinValues (MinValuesPolicy)', () => {
  // Only two m5 sizes are allowed, but the pool asks for 3 distinct instance types.
  const np = () =>
    nodePool({
      requirements: [{ key: InstanceTypeLabel, operator: 'In', values: ['m5.large', 'm5.xlarge'], minValues: 3 }],
    });

  it('should not schedule if the minValues requirement is not met (Strict)', () => {
    const r = run({ nodePools: [np()], pods: [pod({ cpu: '1' })] });
    expect(r.nodeClaims).toHaveLength(0);
    expect(r.unschedulable[0]?.reason).toContain('minValues');
  });

  it('should relax minValues to what the instance types offer (BestEffort)', () => {
    const p = pod({ cpu: '1' });
    const r = run({ nodePools: [np()], pods: [p], options: { minValuesPolicy: 'BestEffort' } });
    const req = claimOf(r, p)?.requirements.find((x) => x.key === InstanceTypeLabel);
    expect(req?.values?.sort()).toEqual(['m5.large', 'm5.xlarge']);
    expect(req?.minValues).toBe(2);
    // Karpenter records the relaxation on the NodeClaim (karpenter.sh/nodeclaim-min-values-relaxed: "true").
    expect(claimOf(r, p)?.minValuesRelaxed).toBe(true);
    const met = run({ pods: [p], options: { minValuesPolicy: 'BestEffort' } });
    expect(claimOf(met, p)?.minValuesRelaxed).toBe(false);
  });
});
