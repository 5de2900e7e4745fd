// An account's worth of EC2 for the emulator suites, made through the real API: a VPC with discovery-tagged
// subnets in three zones (plus an untagged one), security groups, copies of stock images (two of amd64, one of arm64), and an
// IAM role for instance profiles. Everything is tagged for `cluster`, so a test selects it the way users do.
import {
  CopyImageCommand,
  CreateSecurityGroupCommand,
  CreateSubnetCommand,
  CreateTagsCommand,
  CreateVpcCommand,
  DescribeImagesCommand,
  type EC2Client,
} from '@aws-sdk/client-ec2';
import { CreateRoleCommand, type IAMClient } from '@aws-sdk/client-iam';

export interface TestNetwork {
  vpcId: string;
  /** Tagged for discovery, one per zone a/b/c, with Name tags private-a/b/c. */
  subnets: { id: string; zone: string; name: string }[];
  /** In zone a, not tagged for discovery. */
  untaggedSubnet: string;
  /** Tagged for discovery; `extra` is not. */
  nodeGroup: { id: string; name: string };
  extraGroup: { id: string; name: string };
  /** Copied into this account ("self"), tagged karpless-test=<cluster>; `old*` are older copies of the same. */
  images: { amd64: string; arm64: string; oldAmd64: string };
  role: string;
}

const discovery = (cluster: string) => ({ Key: 'karpenter.sh/discovery', Value: cluster });

export async function createTestNetwork(ec2: EC2Client, iam: IAMClient, cluster: string): Promise<TestNetwork> {
  const vpc = await ec2.send(new CreateVpcCommand({ CidrBlock: '10.42.0.0/16' }));
  const vpcId = vpc.Vpc?.VpcId as string;
  const subnets: TestNetwork['subnets'] = [];
  for (const [i, letter] of ['a', 'b', 'c'].entries()) {
    const s = await ec2.send(
      new CreateSubnetCommand({
        VpcId: vpcId,
        CidrBlock: `10.42.${i}.0/24`,
        AvailabilityZone: `us-east-1${letter}`,
        TagSpecifications: [
          { ResourceType: 'subnet', Tags: [discovery(cluster), { Key: 'Name', Value: `private-${letter}` }] },
        ],
      }),
    );
    subnets.push({ id: s.Subnet?.SubnetId as string, zone: `us-east-1${letter}`, name: `private-${letter}` });
  }
  const untagged = await ec2.send(
    new CreateSubnetCommand({ VpcId: vpcId, CidrBlock: '10.42.9.0/24', AvailabilityZone: 'us-east-1a' }),
  );
  const group = async (name: string, tagged: boolean) => {
    const g = await ec2.send(
      new CreateSecurityGroupCommand({
        GroupName: name,
        Description: name,
        VpcId: vpcId,
        ...(tagged ? { TagSpecifications: [{ ResourceType: 'security-group', Tags: [discovery(cluster)] }] } : {}),
      }),
    );
    return { id: g.GroupId as string, name };
  };
  // moto's RegisterImage records no architecture; a copy of one of its stock Amazon images keeps the source's.
  const stock = async (arch: 'x86_64' | 'arm64') => {
    const found = await ec2.send(
      new DescribeImagesCommand({
        Owners: ['amazon'],
        Filters: [
          { Name: 'architecture', Values: [arch] },
          { Name: 'name', Values: ['al2023-ami-2023*'] },
        ],
      }),
    );
    const id = found.Images?.[0]?.ImageId;
    if (!id) throw new Error(`moto_server offers no stock al2023 ${arch} image to copy`);
    return id;
  };
  const sources = { x86_64: await stock('x86_64'), arm64: await stock('arm64') };
  const image = async (name: string, arch: 'x86_64' | 'arm64') => {
    const r = await ec2.send(
      new CopyImageCommand({ Name: name, SourceImageId: sources[arch], SourceRegion: 'us-east-1' }),
    );
    const id = r.ImageId as string;
    await ec2.send(new CreateTagsCommand({ Resources: [id], Tags: [{ Key: 'karpless-test', Value: cluster }] }));
    return id;
  };
  // Registered first, so its creation time is not later than the newer copy's.
  const oldAmd64 = await image(`${cluster}-node-amd64-v1`, 'x86_64');
  await new Promise((r) => setTimeout(r, 1_100));
  const amd64 = await image(`${cluster}-node-amd64-v2`, 'x86_64');
  const arm64 = await image(`${cluster}-node-arm64-v2`, 'arm64');
  const role = `KarpenterNodeRole-${cluster}`;
  await iam.send(
    new CreateRoleCommand({
      RoleName: role,
      AssumeRolePolicyDocument: JSON.stringify({
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' }],
      }),
    }),
  );
  return {
    vpcId,
    subnets,
    untaggedSubnet: untagged.Subnet?.SubnetId as string,
    nodeGroup: await group(`${cluster}-nodes`, true),
    extraGroup: await group(`${cluster}-extra`, false),
    images: { amd64, arm64, oldAmd64 },
    role,
  };
}
