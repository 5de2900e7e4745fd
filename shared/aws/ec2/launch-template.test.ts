// aws-sdk-client-mock for the one AWS test here: a template vanishing between Describe and Delete (another Lambda's delete) cannot be staged on moto; test/aws-emulator/launch.test.ts deletes stale templates on the emulator.
import { DeleteLaunchTemplateCommand, DescribeLaunchTemplatesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, describe, expect, it } from 'vitest';
import { awsError } from '../../../testkit/aws/fake-aws';
import {
  DEFAULT_METADATA_OPTIONS,
  defaultBlockDevices,
  deleteUnusedLaunchTemplates,
  type LaunchConfig,
  launchTemplateData,
  launchTemplateName,
  volumeSizeGiB,
} from './launch-template';

const ec2 = mockClient(EC2Client);
afterAll(() => ec2.restore());

const config: LaunchConfig = {
  cluster: 'c1',
  amiId: 'ami-1',
  securityGroupIds: ['sg-1'],
  userData: 'hello',
  blockDeviceMappings: defaultBlockDevices('AL2023'),
  metadataOptions: DEFAULT_METADATA_OPTIONS,
  instanceProfile: 'p',
  tags: { a: 'b' },
};

describe('launch templates', () => {
  it('names a configuration by its content, independent of key order', () => {
    const { tags, ...rest } = config;
    const reordered: LaunchConfig = { tags: { ...tags }, ...rest };
    expect(launchTemplateName(reordered)).toBe(launchTemplateName(config));
    expect(launchTemplateName({ ...config, amiId: 'ami-2' })).not.toBe(launchTemplateName(config));
    expect(launchTemplateName({ ...config, userData: 'other' })).not.toBe(launchTemplateName(config));
  });

  it('moves security groups onto an explicit interface when a public IP choice is made', () => {
    const d = launchTemplateData({ ...config, associatePublicIPAddress: false });
    expect(d.SecurityGroupIds).toBeUndefined();
    expect(d.NetworkInterfaces).toEqual([{ DeviceIndex: 0, AssociatePublicIpAddress: false, Groups: ['sg-1'] }]);
    expect(Buffer.from(d.UserData ?? '', 'base64').toString()).toBe('hello');
  });

  it('gives Bottlerocket a small OS volume and a data volume', () => {
    const d = launchTemplateData({ ...config, blockDeviceMappings: defaultBlockDevices('Bottlerocket') });
    expect(d.BlockDeviceMappings?.map((b) => `${b.DeviceName}:${b.Ebs?.VolumeSize}`)).toEqual([
      '/dev/xvda:4',
      '/dev/xvdb:20',
    ]);
  });

  it('parses volume sizes and rejects nonsense with the field named', () => {
    expect(volumeSizeGiB('20Gi')).toBe(20);
    expect(volumeSizeGiB('100G')).toBe(94);
    expect(volumeSizeGiB('1Ti')).toBe(1024);
    expect(() => volumeSizeGiB('big')).toThrow(/blockDeviceMappings volumeSize "big"/);
  });

  it('deletes only this cluster’s templates that are no longer used; a vanished one is fine', async () => {
    ec2.on(DescribeLaunchTemplatesCommand).resolves({
      LaunchTemplates: [
        { LaunchTemplateName: 'karpless/c1/keep' },
        { LaunchTemplateName: 'karpless/c1/old' },
        { LaunchTemplateName: 'karpless/c1/gone' },
        { LaunchTemplateName: 'someone-elses' },
      ],
    });
    ec2
      .on(DeleteLaunchTemplateCommand, { LaunchTemplateName: 'karpless/c1/gone' })
      .rejects(awsError('InvalidLaunchTemplateName.NotFoundException'));
    ec2.on(DeleteLaunchTemplateCommand, { LaunchTemplateName: 'karpless/c1/old' }).resolves({});
    const deleted = await deleteUnusedLaunchTemplates(
      new EC2Client({ region: 'us-east-1' }),
      'c1',
      new Set(['karpless/c1/keep']),
    );
    expect(deleted).toEqual(['karpless/c1/old']);
    expect(ec2.commandCalls(DescribeLaunchTemplatesCommand)[0]?.args[0].input.Filters).toEqual([
      { Name: 'tag:karpless.dev/cluster', Values: ['c1'] },
    ]);
    expect(ec2.commandCalls(DeleteLaunchTemplateCommand)).toHaveLength(2);
  });
});
