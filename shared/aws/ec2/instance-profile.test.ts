// aws-sdk-client-mock: a create racing another Lambda's and an IAM AccessDenied cannot be staged on moto (it does not enforce IAM); the create path and a role swap run on the emulator (test/aws-emulator/nodeclass.test.ts, instance-profile.test.ts).
import {
  AddRoleToInstanceProfileCommand,
  CreateInstanceProfileCommand,
  GetInstanceProfileCommand,
  IAMClient,
} from '@aws-sdk/client-iam';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { awsError } from '../../../testkit/aws/fake-aws';
import { ensureInstanceProfile, instanceProfileName, roleName } from './instance-profile';

const iam = mockClient(IAMClient);
const client = new IAMClient({ region: 'us-east-1' });
afterAll(() => iam.restore());
beforeEach(() => iam.reset());

const o = { cluster: 'c1', region: 'us-east-1', role: 'arn:aws:iam::1:role/nodes/NodeRole' };
const name = instanceProfileName('c1', 'us-east-1', 'NodeRole');
const tagged = [{ Key: 'kubernetes.io/cluster/c1', Value: 'owned' }];

describe('ensureInstanceProfile', () => {
  it('accepts a role ARN and names the profile by the bare role name', () => {
    expect(roleName(o.role)).toBe('NodeRole');
    expect(instanceProfileName('c1', 'us-east-1', o.role)).toBe(name);
  });

  it('survives a concurrent create (EntityAlreadyExists) and uses the winner’s profile', async () => {
    iam
      .on(GetInstanceProfileCommand)
      .rejectsOnce(awsError('NoSuchEntityException'))
      .resolves({
        InstanceProfile: { InstanceProfileName: name, Roles: [{ RoleName: 'NodeRole' }], Tags: tagged } as never,
      });
    iam.on(CreateInstanceProfileCommand).rejects(awsError('EntityAlreadyExistsException'));
    expect(await ensureInstanceProfile(client, o)).toBe(name);
    expect(iam.commandCalls(AddRoleToInstanceProfileCommand)).toHaveLength(0);
  });

  it('passes other IAM failures on', async () => {
    iam
      .on(GetInstanceProfileCommand)
      .rejects(awsError('AccessDenied', 'not authorized to perform: iam:GetInstanceProfile'));
    await expect(ensureInstanceProfile(client, o)).rejects.toThrow(/iam:GetInstanceProfile/);
  });
});
