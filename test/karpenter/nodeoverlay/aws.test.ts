// aws/karpenter-provider-aws pkg/providers/instance/suite_test.go, the allocation-strategy cases for NodeOverlay
// pricing, on AwsCloudProvider.create. aws-sdk-client-mock (testkit/aws/fake-aws.ts): moto accepts any allocation
// strategy and ignores priorities, so only the CreateFleet request can show them.
import { CreateFleetCommand } from '@aws-sdk/client-ec2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NodeSelectorRequirementWithMinValues } from '../../../shared/api/karpenter';
import { applyNodeOverlays } from '../../../shared/catalog/overlay';
import type { InstanceType } from '../../../shared/catalog/types';
import { type FakeAws, fakeAws } from '../../../testkit/aws/fake-aws';
import { fakeAwsProvider } from '../../../testkit/aws/provider';
import { ec2NodeClass, nodeClaim, nodePool } from '../../../testkit/builders';
import { makeInstanceType } from '../../../testkit/instance-types';
import { overlay, req } from '../../../testkit/nodeoverlay';

let aws: FakeAws;
beforeEach(() => {
  aws = fakeAws();
});
afterEach(() => aws.restore());

const TYPES: InstanceType[] = [
  makeInstanceType('m5.large', { onDemand: 0.096, spot: { 'us-east-1a': 0.04, 'us-east-1b': 0.041 } }),
  makeInstanceType('c5.large', { onDemand: 0.085, spot: { 'us-east-1a': 0.035 } }),
];

/** The types as readSnapshot hands them to a launch: with the NodeOverlay applied when one is given. */
function typesWith(withOverlay: boolean): InstanceType[] {
  if (!withOverlay) return TYPES;
  const o = overlay({ requirements: [req('node.kubernetes.io/instance-type', 'In', ['m5.large'])], price: '0.01' });
  return (
    applyNodeOverlays([o], [{ name: 'default' }], new Map([['default', TYPES]])).instanceTypes.get('default') ?? []
  );
}

async function launch(capacityType: 'on-demand' | 'spot', withOverlay: boolean) {
  const requirements: NodeSelectorRequirementWithMinValues[] = [
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: [capacityType] },
  ];
  const provider = fakeAwsProvider(aws, { instanceTypes: () => [], clock: { now: () => Date.parse('2026-01-01') } });
  await provider.create({
    claim: nodeClaim({ requirements }),
    nodePool: nodePool(),
    nodeClass: ec2NodeClass(),
    instanceTypes: typesWith(withOverlay),
  });
  const calls = aws.ec2.commandCalls(CreateFleetCommand);
  expect(calls).toHaveLength(1);
  return calls[0]?.args[0].input;
}

describe('InstanceProvider', () => {
  it('should use priotiztied allocation stragaty for an on-demand nodeclaim using nodeoverlay pricing', async () => {
    const input = await launch('on-demand', true);
    expect(input?.OnDemandOptions?.AllocationStrategy).toBe('prioritized');
    // Each override's priority is its price as Karpless sees it: the overlaid m5.large first.
    const priorities = input?.LaunchTemplateConfigs?.[0]?.Overrides?.map((o) => `${o.InstanceType}=${o.Priority}`);
    expect(priorities).toEqual(['m5.large=0.01', 'm5.large=0.01', 'c5.large=0.085', 'c5.large=0.085']);
  });
  it('should use lowest price allocation stragaty by default for on-demand nodeclaims', async () => {
    const input = await launch('on-demand', false);
    expect(input?.OnDemandOptions?.AllocationStrategy).toBe('lowest-price');
    expect(input?.LaunchTemplateConfigs?.[0]?.Overrides?.every((o) => o.Priority === undefined)).toBe(true);
  });
  it('should use capacity optimized prioritized allocation stragaty for an spot nodeclaim using nodeoverlay', async () => {
    const input = await launch('spot', true);
    expect(input?.SpotOptions?.AllocationStrategy).toBe('capacity-optimized-prioritized');
  });
  it('should use price capacity optimized allocation stragaty by default for spot nodeclaims', async () => {
    const input = await launch('spot', false);
    expect(input?.SpotOptions?.AllocationStrategy).toBe('price-capacity-optimized');
  });
});
