// ensureInstanceProfile on the emulator's IAM: a profile left by an earlier configuration (another role, no cluster
// tag) is repaired in place, as a changed EC2NodeClass `role` needs.
import {
  AddRoleToInstanceProfileCommand,
  CreateInstanceProfileCommand,
  CreateRoleCommand,
  GetInstanceProfileCommand,
} from '@aws-sdk/client-iam';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureInstanceProfile, instanceProfileName } from '../../shared/aws/ec2/instance-profile';
import { clusterTags } from '../../shared/aws/ec2/tags';
import { type Emulator, emulator } from './emulator';

const cluster = 'profile-swap';
const trust = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' }],
});
let aws: Emulator;

beforeAll(async () => {
  aws = emulator();
  for (const RoleName of ['OldNodeRole', 'NewNodeRole'])
    await aws.iam.send(new CreateRoleCommand({ RoleName, AssumeRolePolicyDocument: trust }));
});

describe('ensureInstanceProfile on the emulator', () => {
  it('swaps in a changed role and re-tags an untagged profile', async () => {
    const name = instanceProfileName(cluster, 'us-east-1', 'NewNodeRole');
    await aws.iam.send(new CreateInstanceProfileCommand({ InstanceProfileName: name, Path: '/karpless/' }));
    await aws.iam.send(new AddRoleToInstanceProfileCommand({ InstanceProfileName: name, RoleName: 'OldNodeRole' }));

    const got = await ensureInstanceProfile(aws.iam, {
      cluster,
      region: 'us-east-1',
      role: 'arn:aws:iam::123456789012:role/NewNodeRole',
    });

    expect(got).toBe(name);
    const profile = (await aws.iam.send(new GetInstanceProfileCommand({ InstanceProfileName: name }))).InstanceProfile;
    expect(profile?.Roles?.map((r) => r.RoleName)).toEqual(['NewNodeRole']);
    const [key, value] = Object.entries(clusterTags(cluster))[0] as [string, string];
    expect(profile?.Tags).toEqual(expect.arrayContaining([{ Key: key, Value: value }]));
  });
});
