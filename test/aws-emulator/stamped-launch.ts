// EC2 stamps aws:ec2launchtemplate:id on every instance a fleet launches from a launch template; moto 5.2.1 stamps it
// only on RunInstances from a template, never on fleet instances. Tests that need a Karpless launch as EC2 describes
// it replace the fleet's instance with one launched from the same cluster template, with the same tags and subnet.
import {
  DescribeInstancesCommand,
  DescribeLaunchTemplatesCommand,
  type EC2Client,
  RunInstancesCommand,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';

/** Terminates the fleet instance `instanceId` and returns the id of its stand-in, launched from the cluster's only
 * Karpless launch template so that it carries EC2's launch template stamp. */
export async function relaunchStamped(ec2: EC2Client, cluster: string, instanceId: string): Promise<string> {
  const described = await ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }));
  const instance = described.Reservations?.[0]?.Instances?.[0];
  if (!instance) throw new Error(`relaunchStamped: instance ${instanceId} not found`);
  const templates = await ec2.send(
    new DescribeLaunchTemplatesCommand({ Filters: [{ Name: 'tag:karpless.dev/cluster', Values: [cluster] }] }),
  );
  const ids = (templates.LaunchTemplates ?? []).flatMap((t) => (t.LaunchTemplateId ? [t.LaunchTemplateId] : []));
  if (ids.length !== 1)
    throw new Error(`relaunchStamped: expected one ${cluster} launch template, found ${ids.length}`);
  await ec2.send(new TerminateInstancesCommand({ InstanceIds: [instanceId] }));
  const tags = (instance.Tags ?? []).filter((t) => !t.Key?.startsWith('aws:'));
  const out = await ec2.send(
    new RunInstancesCommand({
      LaunchTemplate: { LaunchTemplateId: ids[0], Version: '$Latest' },
      MinCount: 1,
      MaxCount: 1,
      ...(instance.SubnetId ? { SubnetId: instance.SubnetId } : {}),
      ...(tags.length ? { TagSpecifications: [{ ResourceType: 'instance', Tags: tags }] } : {}),
    }),
  );
  const id = out.Instances?.[0]?.InstanceId;
  if (!id) throw new Error(`relaunchStamped: RunInstances returned no instance for ${instanceId}`);
  return id;
}
