// The instance profile a node class launches with: either named by the user (`instanceProfile`), or one Karpless
// creates for `role`, named deterministically from cluster, region and role so every Lambda finds the same one,
// and tagged for the cluster so IAM conditions can scope who may touch it.
import { createHash } from 'node:crypto';
import {
  AddRoleToInstanceProfileCommand,
  CreateInstanceProfileCommand,
  GetInstanceProfileCommand,
  type IAMClient,
  type InstanceProfile,
  RemoveRoleFromInstanceProfileCommand,
  TagInstanceProfileCommand,
} from '@aws-sdk/client-iam';
import { clusterTags } from './tags';

export const INSTANCE_PROFILE_PATH = '/karpless/';

/** Role names may be given as an ARN; IAM's instance-profile calls want the bare name. */
export function roleName(role: string): string {
  return role.includes(':role/') ? (role.split('/').pop() ?? role) : role;
}

export function instanceProfileName(cluster: string, region: string, role: string): string {
  const hash = createHash('sha256')
    .update(`${region}/${cluster}/${roleName(role)}`)
    .digest('hex')
    .slice(0, 16);
  // IAM allows 128 characters; keep a readable prefix and the hash that makes it unique.
  return `${`karpless_${cluster}`.slice(0, 100)}_${hash}`;
}

const isName = (err: unknown, name: string) => (err as { name?: string } | undefined)?.name === name;

async function getProfile(iam: IAMClient, name: string): Promise<InstanceProfile | undefined> {
  try {
    return (await iam.send(new GetInstanceProfileCommand({ InstanceProfileName: name }))).InstanceProfile;
  } catch (err) {
    if (isName(err, 'NoSuchEntityException') || isName(err, 'NoSuchEntity')) return undefined;
    throw err;
  }
}

/** Finds or creates the cluster's profile for `role`, with exactly that role in it. Returns the profile name. */
export async function ensureInstanceProfile(
  iam: IAMClient,
  o: { cluster: string; region: string; role: string },
): Promise<string> {
  const name = instanceProfileName(o.cluster, o.region, o.role);
  const role = roleName(o.role);
  const tags = Object.entries(clusterTags(o.cluster)).map(([Key, Value]) => ({ Key, Value }));
  let profile = await getProfile(iam, name);
  if (!profile) {
    try {
      profile = (
        await iam.send(
          new CreateInstanceProfileCommand({ InstanceProfileName: name, Path: INSTANCE_PROFILE_PATH, Tags: tags }),
        )
      ).InstanceProfile;
    } catch (err) {
      // Another Lambda created it between our Get and Create.
      if (!isName(err, 'EntityAlreadyExistsException') && !isName(err, 'EntityAlreadyExists')) throw err;
      profile = await getProfile(iam, name);
    }
  } else if (!(profile.Tags ?? []).some((t) => t.Key === tags[0]?.Key)) {
    await iam.send(new TagInstanceProfileCommand({ InstanceProfileName: name, Tags: tags }));
  }
  const current = (profile?.Roles ?? []).map((r) => r.RoleName);
  if (current.includes(role)) return name;
  // A profile holds at most one role: replace a role the user has since changed.
  for (const old of current) {
    if (old) await iam.send(new RemoveRoleFromInstanceProfileCommand({ InstanceProfileName: name, RoleName: old }));
  }
  try {
    await iam.send(new AddRoleToInstanceProfileCommand({ InstanceProfileName: name, RoleName: role }));
  } catch (err) {
    // LimitExceeded here means a concurrent writer already added a role; the next resolve re-checks which.
    if (!isName(err, 'LimitExceededException') && !isName(err, 'LimitExceeded')) throw err;
  }
  return name;
}
