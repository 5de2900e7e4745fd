// aws/karpenter-provider-aws pkg/cloudprovider/suite_test.go (Drift) and karpenter.sh's Drift page, on the scenario
// runner: drift the way it happens in AWS, by changing the account under running nodes (a new AMI for an alias, a
// retagged subnet or security group, a Kubernetes upgrade), never by editing the nodes.
import { describe, expect, it } from 'vitest';
import type { StepAction } from '../../../shared/sim/scenario/types';
import {
  apply,
  deployment,
  disrupted,
  driftReasons,
  kubernetesVersion,
  liveClaims,
  MINUTE,
  NO_VIOLATIONS,
  nodeClass,
  nodePool,
  patchNodeClass,
  publishAmi,
  replacementsFor,
  retag,
  run,
  scenario,
  step,
} from '../../../testkit/karpenter';

const DISCOVERY = { 'karpenter.sh/discovery': 'test' };

/** One m5.large node holding `web` in us-east-1a; `change` happens at 5m. */
async function withChange(
  change: StepAction | StepAction[] | undefined,
  classSpec: Parameters<typeof nodeClass>[0] = {},
) {
  return run(
    scenario(20 * MINUTE, [
      step(
        0,
        apply(
          nodePool({ types: ['m5.large'], consolidateAfter: 'Never' }),
          nodeClass(classSpec),
          deployment('web', 1, { cpu: '1' }),
        ),
      ),
      ...[change ?? []].flat().map((c) => step(5 * MINUTE, c)),
    ]),
  );
}

const images = async (r: Awaited<ReturnType<typeof withChange>>) => (await r.world.cloud.list()).map((i) => i.imageId);

describe('cloudprovider/suite_test.go Drift', () => {
  it('should return drifted if the AMI is not valid (a new AMI published for al2023@latest)', async () => {
    const r = await withChange(publishAmi('al2023@v20260110', { id: 'ami-0new2026' }));
    expect(disrupted(r, 'Drifted')).toHaveLength(1);
    expect((await driftReasons(r)).join()).toMatch(/^AMIDrift/);
    expect(replacementsFor(r, 'Drifted')).toHaveLength(1);
    // The replacement runs the published image; the old node is gone.
    expect(await images(r)).toEqual(['ami-0new2026']);
    expect(r.violations).toEqual(NO_VIOLATIONS);
  });

  it('should not return drifted if the NodeClaim is valid (nothing changes in the account)', async () => {
    const r = await withChange(undefined);
    expect(disrupted(r)).toEqual([]);
  });

  it('should not return drifted if the NodeClaim is valid (a pinned alias ignores newer releases)', async () => {
    const r = await withChange(publishAmi('al2023@v20260110'), { amiSelectorTerms: [{ alias: 'al2023@v20251201' }] });
    expect(disrupted(r)).toEqual([]);
  });

  it('should not return drifted if the NodeClaim is valid (a release of another family)', async () => {
    const r = await withChange(publishAmi('bottlerocket@v1.30.0'));
    expect(disrupted(r)).toEqual([]);
  });

  it('should return drifted if the subnet is not valid (its tags no longer match; the replacement goes to a selected subnet)', async () => {
    const r = await run(
      scenario(20 * MINUTE, [
        step(
          0,
          apply(
            nodePool({ types: ['m5.large'], consolidateAfter: 'Never' }),
            nodeClass(),
            deployment('web', 1, { cpu: '1' }),
          ),
        ),
        step(4 * MINUTE, retag('subnet', 'subnet-0b2', DISCOVERY, 'us-east-1a')),
        step(5 * MINUTE, retag('subnet', 'subnet-us-east-1a', { Name: 'legacy' })),
      ]),
    );
    expect(disrupted(r, 'Drifted')).toHaveLength(1);
    expect((await driftReasons(r)).join()).toMatch(/^SubnetDrift: instance is in subnet-us-east-1a/);
    expect((await r.world.cloud.list()).map((i) => i.subnetId)).toEqual(['subnet-0b2']);
    // The replacement in the selected subnet is not drifted in turn.
    expect(disrupted(r)).toHaveLength(1);
  });

  it('should return drifted if there are more security groups present than in the nodeclass (a new group is tagged into the selector)', async () => {
    const r = await withChange(retag('securityGroup', 'sg-0extra', DISCOVERY));
    expect(disrupted(r, 'Drifted')).toHaveLength(1);
    expect((await driftReasons(r)).join()).toBe(
      'SecurityGroupDrift: instance has sg-sim, EC2NodeClass resolves to sg-0extra, sg-sim',
    );
    expect((await r.world.cloud.list()).map((i) => i.securityGroupIds)).toEqual([['sg-0extra', 'sg-sim']]);
  });

  it("should return drifted if the instance security groups doesn't match the discovered values (the group is untagged)", async () => {
    const r = await run(
      scenario(20 * MINUTE, [
        step(
          0,
          apply(
            nodePool({ types: ['m5.large'], consolidateAfter: 'Never' }),
            nodeClass(),
            deployment('web', 1, { cpu: '1' }),
          ),
        ),
        step(4 * MINUTE, retag('securityGroup', 'sg-0next', DISCOVERY)),
        step(4 * MINUTE, retag('securityGroup', 'sg-sim', {})),
      ]),
    );
    expect((await driftReasons(r)).join()).toMatch(/^SecurityGroupDrift/);
    expect((await r.world.cloud.list()).map((i) => i.securityGroupIds)).toEqual([['sg-0next']]);
  });

  it('should return an error if subnets are empty (no subnet discovered any more: broken discovery never drifts nodes)', async () => {
    // As upstream, the class discovers no subnet at all: drift cannot be judged, so nothing is disrupted.
    const untag = ['us-east-1a', 'us-east-1b', 'us-east-1c'].map((z) => retag('subnet', `subnet-${z}`, { Name: 'x' }));
    const r = await withChange(untag);
    expect(disrupted(r)).toEqual([]);
    expect(await liveClaims(r)).toHaveLength(1);
    expect(await r.world.cluster.listPendingPods()).toEqual([]);
  });

  it('should return an error if the security groups are empty (broken discovery never drifts nodes)', async () => {
    const r = await withChange(retag('securityGroup', 'sg-sim', { Name: 'other' }));
    expect(disrupted(r)).toEqual([]);
  });

  it('should not return drifted if the security groups match (an unrelated group is tagged)', async () => {
    const r = await withChange(retag('securityGroup', 'sg-0other', { 'karpenter.sh/discovery': 'another-cluster' }));
    expect(disrupted(r)).toEqual([]);
  });
});

// Karpenter's hash ignores the selector terms ("should not return drifted if dynamic fields are updated"): a term
// change drifts a node through what the terms resolve to (AMIDrift, SubnetDrift, SecurityGroupDrift), so leaving them
// out of the hash (docs/disruption.md, Drift) loses nothing. Here the EC2NodeClass itself is patched at 5m.
describe('cloudprovider/suite_test.go Drift: selector-term changes drift dynamically', () => {
  /** One m5.large node of `web`; `setup` at 0 (before the launch), the EC2NodeClass patched at 5m. */
  async function patched(setup: StepAction[], spec: Record<string, unknown>) {
    return run(
      scenario(20 * MINUTE, [
        ...setup.map((a) => step(0, a)),
        step(
          0,
          apply(
            nodePool({ types: ['m5.large'], consolidateAfter: 'Never' }),
            nodeClass(),
            deployment('web', 1, { cpu: '1' }),
          ),
        ),
        step(5 * MINUTE, patchNodeClass(spec)),
      ]),
    );
  }
  const KNOWN_AMI = publishAmi('al2023@v20260110', { id: 'ami-0known' });
  const TAGGED_SUBNETS = [
    retag('subnet', 'subnet-us-east-1a', DISCOVERY),
    retag('subnet', 'subnet-0b2', { team: 'b' }, 'us-east-1a'),
  ];

  it('should not return drifted if dynamic fields are updated (AMI Drift: the new terms select the image the node runs)', async () => {
    const r = await patched([KNOWN_AMI], { amiFamily: 'AL2023', amiSelectorTerms: [{ id: 'ami-0known' }] });
    expect(await images(r)).toEqual(['ami-0known']);
    expect(disrupted(r)).toEqual([]);
  });

  it('should return drifted if the AMI is not valid (the new terms select another image)', async () => {
    const r = await patched([KNOWN_AMI], { amiFamily: 'AL2023', amiSelectorTerms: [{ id: 'ami-0other' }] });
    expect(disrupted(r, 'Drifted')).toHaveLength(1);
    expect((await driftReasons(r)).join()).toMatch(/^AMIDrift: instance runs ami-0known/);
    expect(await images(r)).toEqual(['ami-0other']);
  });

  it('should not return drifted if dynamic fields are updated (Subnet Drift: the new terms select the same subnet)', async () => {
    const r = await patched(TAGGED_SUBNETS, { subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': '*' } }] });
    expect(disrupted(r)).toEqual([]);
  });

  it('should return drifted if the subnet is not valid (the new terms select another subnet)', async () => {
    const r = await patched(TAGGED_SUBNETS, { subnetSelectorTerms: [{ tags: { team: 'b' } }] });
    expect(disrupted(r, 'Drifted')).toHaveLength(1);
    expect((await driftReasons(r)).join()).toMatch(/^SubnetDrift: instance is in subnet-us-east-1a/);
    expect((await r.world.cloud.list()).map((i) => i.subnetId)).toEqual(['subnet-0b2']);
  });

  it('should not return drifted if dynamic fields are updated (SecurityGroup Drift: the new terms select the same group)', async () => {
    const r = await patched([], { securityGroupSelectorTerms: [{ id: 'sg-sim' }] });
    expect(disrupted(r)).toEqual([]);
  });

  it("should return drifted if the instance security groups doesn't match the discovered values (the new terms name another group by id)", async () => {
    const r = await patched([retag('securityGroup', 'sg-0new', { team: 'b' })], {
      securityGroupSelectorTerms: [{ id: 'sg-0new' }],
    });
    expect(disrupted(r, 'Drifted')).toHaveLength(1);
    // An id term selects that group alone, as on AWS: the account's default group is not selected by it.
    expect(await driftReasons(r)).toEqual([
      'SecurityGroupDrift: instance has sg-sim, EC2NodeClass resolves to sg-0new',
    ]);
    expect((await r.world.cloud.list()).map((i) => i.securityGroupIds)).toEqual([['sg-0new']]);
  });

  it("should return drifted if the instance security groups doesn't match the discovered values (the new terms name another group by name)", async () => {
    const r = await patched([retag('securityGroup', 'sg-0web', { Name: 'web-nodes' })], {
      securityGroupSelectorTerms: [{ name: 'web-nodes' }],
    });
    expect(await driftReasons(r)).toEqual([
      'SecurityGroupDrift: instance has sg-sim, EC2NodeClass resolves to sg-0web',
    ]);
    expect((await r.world.cloud.list()).map((i) => i.securityGroupIds)).toEqual([['sg-0web']]);
  });

  it("should return drifted if the instance security groups doesn't match the discovered values (the new tags select another group)", async () => {
    // Once a step has given the default group tags, tags terms are matched against them like any group's.
    const r = await patched(
      [retag('securityGroup', 'sg-sim', DISCOVERY), retag('securityGroup', 'sg-0b', { team: 'b', tier: 'web-1' })],
      { securityGroupSelectorTerms: [{ tags: { team: 'b', tier: 'web-*' } }] },
    );
    expect(await driftReasons(r)).toEqual(['SecurityGroupDrift: instance has sg-sim, EC2NodeClass resolves to sg-0b']);
  });

  it('should return drifted if a statically drifted EC2NodeClass.Spec field is updated (userData)', async () => {
    const r = await patched([], { userData: 'echo changed' });
    expect(disrupted(r, 'Drifted')).toHaveLength(1);
    expect((await driftReasons(r)).join()).toMatch(/^EC2NodeClass default changed/);
  });
});

// Karpenter maps the class's images to the node's instance type (isAMIDrifted): the image of the node's architecture
// decides, so a release for one architecture drifts that architecture's nodes only.
describe('cloudprovider/suite_test.go Drift: AMIs per instance type', () => {
  it('should return drifted if the AMI is not valid (a new arm64 image drifts the arm64 node, not the amd64 one)', async () => {
    const r = await run(
      scenario(20 * MINUTE, [
        step(
          0,
          apply(
            nodePool({ types: ['m5.large', 'm6g.large'], consolidateAfter: 'Never' }),
            nodeClass(),
            deployment('web-amd', 1, { cpu: '1', nodeSelector: { 'kubernetes.io/arch': 'amd64' } }),
            deployment('web-arm', 1, { cpu: '1', nodeSelector: { 'kubernetes.io/arch': 'arm64' } }),
          ),
        ),
        step(5 * MINUTE, publishAmi('al2023@v20260110', { id: 'ami-0arm2026', arch: 'arm64' })),
      ]),
    );
    expect(disrupted(r, 'Drifted')).toHaveLength(1);
    expect(await driftReasons(r)).toEqual([
      expect.stringMatching(
        /^AMIDrift: instance runs ami-\w+, EC2NodeClass resolves to ami-0arm2026 for m6g\.large \(arm64\)$/,
      ),
    ]);
    const live = (await r.world.cloud.list()).map((i) => `${i.instanceType} ${i.imageId}`).sort();
    const amd64 = r.world.cloud.imageFor(nodeClassObject(), { arch: 'amd64' });
    expect(live).toEqual([`m5.large ${amd64}`, 'm6g.large ami-0arm2026']);
    expect(r.violations).toEqual(NO_VIOLATIONS);
  });

  it('should return drifted if the AMI no longer matches the existing NodeClaims instance type', async () => {
    // The arm64 node's class now selects only an amd64 image: its type maps to no image, so it drifts, and its
    // replacement is a type the class can boot.
    const r = await run(
      scenario(20 * MINUTE, [
        step(0, publishAmi('al2023@v20260110', { id: 'ami-0amd', arch: 'amd64' })),
        step(
          0,
          apply(
            nodePool({ types: ['m5.large', 'm6g.large'], consolidateAfter: 'Never' }),
            nodeClass(),
            deployment('web', 1, { cpu: '1' }),
          ),
        ),
        step(5 * MINUTE, patchNodeClass({ amiFamily: 'AL2023', amiSelectorTerms: [{ id: 'ami-0amd' }] })),
      ]),
    );
    expect(disrupted(r, 'Drifted')).toHaveLength(1);
    expect((await driftReasons(r)).join()).toMatch(/resolves to no image \(of ami-0amd\) for m6g\.large \(arm64\)$/);
    expect((await r.world.cloud.list()).map((i) => `${i.instanceType} ${i.imageId}`)).toEqual(['m5.large ami-0amd']);
  });
});

describe('karpenter.sh Drift: Kubernetes version (AMI alias resolution follows the control plane)', () => {
  it('drifts nodes of an alias when the cluster is upgraded to another minor version', async () => {
    const r = await withChange(kubernetesVersion('1.32'));
    expect(disrupted(r, 'Drifted')).toHaveLength(1);
    expect((await driftReasons(r)).join()).toMatch(/^AMIDrift/);
    expect(replacementsFor(r, 'Drifted')).toHaveLength(1);
    const [claim] = await liveClaims(r);
    expect(claim?.imageId ?? (await images(r))[0]).toBe(r.world.cloud.imageFor(nodeClassObject(), { arch: 'amd64' }));
  });

  it('drifts nodes of a pinned alias too (the pinned release is looked up for the new version)', async () => {
    const r = await withChange(kubernetesVersion('1.32'), { amiSelectorTerms: [{ alias: 'al2023@v20251201' }] });
    expect(disrupted(r, 'Drifted')).toHaveLength(1);
  });

  it('does not drift nodes whose AMI is chosen by id (Karpenter resolves ids without the version)', async () => {
    const r = await withChange(kubernetesVersion('1.32'), {
      amiFamily: 'AL2023',
      amiSelectorTerms: [{ id: 'ami-0123456789abcdef0' }],
    });
    expect(disrupted(r)).toEqual([]);
  });
});

/** The `default` class as the runner stores it (for the image it resolves to now). */
function nodeClassObject() {
  return nodeClass() as unknown as Parameters<Awaited<ReturnType<typeof withChange>>['world']['cloud']['imageFor']>[0];
}
