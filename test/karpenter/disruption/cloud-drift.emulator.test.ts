// aws/karpenter-provider-aws pkg/cloudprovider/suite_test.go ("NodeClaim Drift", the AMI cases) on moto_server: the
// AWS adapter's isDrifted against real DescribeImages/DescribeInstances answers. As in Karpenter's isAMIDrifted, a
// node drifts when its image is not the one the class's images map to its instance type (docs/disruption.md, Drift):
// an image still resolved, but for another architecture, drifts it; a node of the other architecture is left alone.
// Last, Karpless's departure on the cluster CA bundle, which Karpenter hashes and Karpless does not.
import {
  CopyImageCommand,
  CreateTagsCommand,
  DescribeLaunchTemplateVersionsCommand,
  RunInstancesCommand,
} from '@aws-sdk/client-ec2';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EC2NodeClass } from '../../../shared/api/karpenter';
import { AwsCloudProvider } from '../../../shared/aws/cloud-provider';
import type { InstanceType } from '../../../shared/catalog/types';
import { testCluster } from '../../../testkit/aws/objects';
import { ec2NodeClass, nodeClaim, nodePool } from '../../../testkit/builders';
import { makeInstanceType } from '../../../testkit/instance-types';
import { type Emulator, emulator } from '../../aws-emulator/emulator';
import { createTestNetwork, type TestNetwork } from '../../aws-emulator/network';

const cluster = testCluster.name;
let aws: Emulator;
let net: TestNetwork;
const now = Date.parse('2026-11-26T12:00:00Z');

beforeAll(async () => {
  aws = emulator();
  net = await createTestNetwork(aws.ec2, aws.iam, cluster);
});

const types: InstanceType[] = [
  makeInstanceType('m5.large', { onDemand: 0.096 }),
  makeInstanceType('m6g.large', { arch: 'arm64', onDemand: 0.077 }),
];

/** A fresh provider each time, so no resolution is cached across a change of terms. */
const provider = (cluster = testCluster) =>
  new AwsCloudProvider({
    cluster,
    ec2: aws.ec2,
    ssm: aws.ssm,
    iam: aws.iam,
    clock: { now: () => now },
    instanceTypes: () => types,
    sleep: async () => {},
  });

const nodeClass = (
  amiSelectorTerms: EC2NodeClass['spec']['amiSelectorTerms'] = [{ tags: { 'karpless-test': cluster } }],
) => ec2NodeClass({ amiSelectorTerms, amiFamily: 'AL2023', role: net.role });

/** A running node of `type` booted from `imageId`, in a selected subnet with the selected group: only its image can
 * drift. */
async function node(type: 'm5.large' | 'm6g.large', imageId: string) {
  const out = await aws.ec2.send(
    new RunInstancesCommand({
      ImageId: imageId,
      InstanceType: type,
      MinCount: 1,
      MaxCount: 1,
      SubnetId: net.subnets[0]?.id,
      SecurityGroupIds: [net.nodeGroup.id],
      TagSpecifications: [{ ResourceType: 'instance', Tags: [{ Key: 'karpless.dev/cluster', Value: cluster }] }],
    }),
  );
  const instanceId = out.Instances?.[0]?.InstanceId as string;
  return nodeClaim({ name: `${type}-${instanceId}`, instanceId, instanceType: type, imageId });
}

describe('cloudprovider/suite_test.go NodeClaim Drift (AMI) on moto_server', () => {
  it('should not return drifted if the NodeClaim is valid', async () => {
    const amd = await node('m5.large', net.images.amd64);
    const arm = await node('m6g.large', net.images.arm64);
    expect(await provider().isDrifted(amd, nodeClass())).toBeUndefined();
    expect(await provider().isDrifted(arm, nodeClass())).toBeUndefined();
  });

  it('should return drifted if the AMI is not valid', async () => {
    // The class's tags select the older copy too, but the newest amd64 image wins, so a node on the old one drifts.
    const old = await node('m5.large', net.images.oldAmd64);
    expect(await provider().isDrifted(old, nodeClass())).toBe(
      `AMIDrift: instance runs ${net.images.oldAmd64}, EC2NodeClass resolves to ${net.images.amd64} for m5.large (amd64)`,
    );
  });

  it('should return drifted if the AMI no longer matches the existing NodeClaims instance type', async () => {
    // Karpenter's case: the class now selects only the amd64 image; the arm64 node's type maps to no image.
    const arm = await node('m6g.large', net.images.arm64);
    const amd = await node('m5.large', net.images.amd64);
    const amdOnly = nodeClass([{ id: net.images.amd64 }]);
    expect(await provider().isDrifted(arm, amdOnly)).toMatch(
      new RegExp(`^AMIDrift: instance runs ${net.images.arm64}, EC2NodeClass resolves to no image .* for m6g\\.large`),
    );
    expect(await provider().isDrifted(amd, amdOnly)).toBeUndefined();
  });

  it('should return drifted if the AMI no longer matches the existing NodeClaims instance type (the image is still resolved, for another architecture)', async () => {
    // The node's image is among the class's images, but it is the amd64 one and the node is arm64: what its type
    // boots now is the arm64 image, so it drifts (comparing against every resolved image would keep it).
    const arm = await node('m6g.large', net.images.amd64);
    expect(await provider().isDrifted(arm, nodeClass())).toBe(
      `AMIDrift: instance runs ${net.images.amd64}, EC2NodeClass resolves to ${net.images.arm64} for m6g.large (arm64)`,
    );
  });

  it('drifts only the nodes of the architecture whose image was replaced', async () => {
    const copy = await aws.ec2.send(
      new CopyImageCommand({
        Name: `${cluster}-node-arm64-v3`,
        SourceImageId: net.images.arm64,
        SourceRegion: 'us-east-1',
      }),
    );
    const arm64v3 = copy.ImageId as string;
    await aws.ec2.send(new CreateTagsCommand({ Resources: [arm64v3], Tags: [{ Key: 'release', Value: 'v3' }] }));
    const arm = await node('m6g.large', net.images.arm64);
    const amd = await node('m5.large', net.images.amd64);
    const before = nodeClass([{ id: net.images.amd64 }, { id: net.images.arm64 }]);
    const after = nodeClass([{ id: net.images.amd64 }, { id: arm64v3 }]);
    expect(await provider().isDrifted(arm, before)).toBeUndefined();
    expect(await provider().isDrifted(arm, after)).toBe(
      `AMIDrift: instance runs ${net.images.arm64}, EC2NodeClass resolves to ${arm64v3} for m6g.large (arm64)`,
    );
    expect(await provider().isDrifted(amd, after)).toBeUndefined();
  });
});

describe('the cluster CA bundle (docs/disruption.md, Drift: a departure from Karpenter)', () => {
  it('does not drift nodes when the CA bundle changes; launches after it carry the new bundle', async () => {
    // Karpenter hashes the CA bundle into the EC2NodeClass hash (v1.12, "support nodeclaim drift on CA bundle"), so
    // a new bundle drifts every node; Karpless leaves the nodes that run and boots new ones with the new bundle.
    const rotated = { ...testCluster, caData: Buffer.from('a rotated CA').toString('base64') };
    const running = await node('m5.large', net.images.amd64);
    expect(await provider().isDrifted(running, nodeClass())).toBeUndefined();
    expect(await provider(rotated).isDrifted(running, nodeClass())).toBeUndefined();
    const launched = await provider(rotated).create({
      claim: nodeClaim({ name: 'after-rotation', uid: `uid-after-rotation-${aws.account}` }),
      nodePool: nodePool(),
      nodeClass: nodeClass(),
      instanceTypes: [types[0] as InstanceType],
    });
    const templates = await aws.ec2.send(new DescribeLaunchTemplateVersionsCommand({ Versions: ['$Latest'] }));
    const userData = (templates.LaunchTemplateVersions ?? [])
      .filter((v) => v.LaunchTemplateData?.ImageId === launched.imageId)
      .map((v) => Buffer.from(v.LaunchTemplateData?.UserData ?? '', 'base64').toString());
    expect(userData.some((u) => u.includes(rotated.caData))).toBe(true);
    expect(userData.some((u) => u.includes(testCluster.caData))).toBe(false);
  });
});
