// EC2NodeClass resolution against moto_server through the real EC2, SSM and IAM clients: selector terms become
// Describe* filters that EC2 itself evaluates, so a wrong filter name or value shape fails here.
import { GetInstanceProfileCommand } from '@aws-sdk/client-iam';
import { PutParameterCommand } from '@aws-sdk/client-ssm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EC2NodeClass } from '../../shared/api/karpenter';
import { aliasParameter } from '../../shared/aws/ec2/amis';
import { NodeClassResolver } from '../../shared/aws/ec2/nodeclass';
import { testCluster } from '../../testkit/aws/objects';
import { ec2NodeClass } from '../../testkit/builders';
import { type Emulator, emulator } from './emulator';
import { createTestNetwork, type TestNetwork } from './network';

const cluster = testCluster.name;
let aws: Emulator;
let net: TestNetwork;

beforeAll(async () => {
  aws = emulator();
  net = await createTestNetwork(aws.ec2, aws.iam, cluster);
});

const resolver = () =>
  new NodeClassResolver({ ec2: aws.ec2, ssm: aws.ssm, iam: aws.iam, cluster: testCluster, clock: { now: () => 0 } });

/** A node class that selects this account's images by tag unless the test says otherwise. */
const nodeClass = (spec: Partial<EC2NodeClass['spec']> = {}) =>
  ec2NodeClass({ amiSelectorTerms: [{ tags: { 'karpless-test': cluster } }], role: net.role, ...spec });

describe('EC2NodeClass resolution on the emulator', () => {
  it('selects subnets and security groups by discovery tag, one subnet per zone', async () => {
    const r = await resolver().resolve(nodeClass());
    expect(r.subnets.map((s) => s.id).sort()).toEqual(net.subnets.map((s) => s.id).sort());
    expect([...r.subnetByZone.keys()].sort()).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1c']);
    expect(r.subnetByZone.get('us-east-1a')?.id).toBe(net.subnets[0]?.id);
    expect(r.securityGroups).toEqual([{ id: net.nodeGroup.id, name: net.nodeGroup.name }]);
    expect(r.ready).toEqual({ type: 'Ready', status: 'True', reason: 'Resolved', message: '' });
  });

  it('selects subnets by id and by Name tag, and a tag value "*" means the key exists', async () => {
    const r = await resolver().resolve(
      nodeClass({
        subnetSelectorTerms: [{ id: net.untaggedSubnet }, { name: 'private-b' }],
        securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': '*' } }],
      }),
    );
    expect(r.subnets.map((s) => s.id).sort()).toEqual([net.untaggedSubnet, net.subnets[1]?.id].sort());
    expect(r.securityGroups.map((g) => g.id)).toEqual([net.nodeGroup.id]);
  });

  it('selects security groups by id and by group name; a term ANDs its fields', async () => {
    const r = await resolver().resolve(
      nodeClass({
        securityGroupSelectorTerms: [
          { name: net.extraGroup.name },
          // The node group does not carry team=web, so this term matches nothing.
          { id: net.nodeGroup.id, tags: { team: 'web' } },
        ],
      }),
    );
    expect(r.securityGroups.map((g) => g.id)).toEqual([net.extraGroup.id]);
    const byId = await resolver().resolve(nodeClass({ securityGroupSelectorTerms: [{ id: net.nodeGroup.id }] }));
    expect(byId.securityGroups.map((g) => g.id)).toEqual([net.nodeGroup.id]);
  });

  it('selects AMIs by tag and keeps the newest per architecture', async () => {
    const r = await resolver().resolve(nodeClass());
    expect(r.amis.map((a) => [a.arch, a.id])).toEqual([
      ['amd64', net.images.amd64],
      ['arm64', net.images.arm64],
    ]);
  });

  it("selects AMIs by id, and by name with wildcards among this account's images", async () => {
    const byId = await resolver().resolve(nodeClass({ amiSelectorTerms: [{ id: net.images.oldAmd64 }] }));
    expect(byId.amis.map((a) => a.id)).toEqual([net.images.oldAmd64]);
    const byName = await resolver().resolve(nodeClass({ amiSelectorTerms: [{ name: `${cluster}-node-amd64-*` }] }));
    expect(byName.amis.map((a) => a.id)).toEqual([net.images.amd64]);
    expect(byName.amis[0]?.name).toBe(`${cluster}-node-amd64-v2`);
  });

  it('selects an AMI through a custom ssmParameter term', async () => {
    await aws.ssm.send(
      new PutParameterCommand({ Name: `/${cluster}/node-ami`, Value: net.images.arm64, Type: 'String' }),
    );
    const r = await resolver().resolve(nodeClass({ amiSelectorTerms: [{ ssmParameter: `/${cluster}/node-ami` }] }));
    expect(r.amis.map((a) => [a.arch, a.id])).toEqual([['arm64', net.images.arm64]]);
  });

  // Where moto stops: it serves none of the EKS-optimized /aws/service/eks/... parameters and refuses to create
  // reserved /aws/ names, so an alias resolves to nothing here. The alias → image path itself is covered with a mock
  // in shared/aws/ec2/nodeclass.test.ts; this checks the real ParameterNotFound answer is handled and reported.
  it('reports AMIsNotFound for an alias whose EKS parameters do not exist (moto has none)', async () => {
    const r = await resolver().resolve(nodeClass({ amiSelectorTerms: [{ alias: 'al2023@latest' }] }));
    expect(r.amis).toEqual([]);
    expect(r.ready.status).toBe('False');
    expect(r.ready.reason).toBe('AMIsNotFound');
    expect(r.ready.message).toMatch(
      /no AMI matches amiSelectorTerms \[\{"alias":"al2023@latest"\}\] for Kubernetes 1\.31/,
    );
    expect(aliasParameter({ family: 'al2023', version: 'latest' }, '1.31', 'amd64')).toBe(
      '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id',
    );
  });

  it('says which selector matched nothing', async () => {
    const r = await resolver().resolve(
      nodeClass({ subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'another-cluster' } }] }),
    );
    expect(r.ready.status).toBe('False');
    expect(r.ready.reason).toBe('SubnetsNotFound');
    expect(r.ready.message).toContain('no subnet matches subnetSelectorTerms');
  });

  it('creates the instance profile for the role once, tagged for the cluster, holding exactly that role', async () => {
    const first = await resolver().resolve(nodeClass());
    const second = await resolver().resolve(nodeClass());
    expect(second.instanceProfile).toBe(first.instanceProfile);
    const profile = await aws.iam.send(
      new GetInstanceProfileCommand({ InstanceProfileName: first.instanceProfile as string }),
    );
    expect(profile.InstanceProfile?.Path).toBe('/karpless/');
    expect(profile.InstanceProfile?.Roles?.map((r) => r.RoleName)).toEqual([net.role]);
    expect(profile.InstanceProfile?.Tags).toEqual(
      expect.arrayContaining([{ Key: 'karpless.dev/cluster', Value: cluster }]),
    );
  });
});
