// `karpless forwarder manifest`: the in-cluster forwarder's install manifests. `karpless forwarder rbac`: the
// ClusterRole (and group binding) the Lambda functions' EKS access entry maps to, and the admission policy that keeps
// their node writes to the nodes Karpless manages.
import { bundleForwarder } from '../../forwarder/bundle';
import { controllerRbacYaml, forwarderYaml } from '../../forwarder/manifests';
import { EXIT_OK, EXIT_USAGE } from '../io';
import type { CommandContext } from './index';

export interface ForwarderManifestFlags {
  cluster: string;
  queueUrl: string;
  roleArn?: string;
  image?: string;
  namespace: string;
  serviceAccount: string;
}

const CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$/;
const FIFO_QUEUE_URL = /^https:\/\/sqs\.[a-z0-9-]+\.amazonaws\.com(\.cn)?\/\d{12}\/[A-Za-z0-9_-]{1,75}\.fifo$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/;

export async function runForwarderManifest(ctx: CommandContext, flags: ForwarderManifestFlags): Promise<void> {
  const problems: string[] = [];
  if (!CLUSTER_NAME.test(flags.cluster)) problems.push(`--cluster: "${flags.cluster}" is not a valid EKS cluster name`);
  if (!FIFO_QUEUE_URL.test(flags.queueUrl)) {
    problems.push(
      `--queue-url: "${flags.queueUrl}" is not an SQS FIFO queue URL (https://sqs.<region>.amazonaws.com/<account>/<name>.fifo)`,
    );
  }
  if (flags.roleArn !== undefined && !ROLE_ARN.test(flags.roleArn))
    problems.push(`--role-arn: "${flags.roleArn}" is not an IAM role ARN`);
  if (!DNS_LABEL.test(flags.namespace))
    problems.push(`--namespace: "${flags.namespace}" is not a valid namespace name`);
  if (!DNS_LABEL.test(flags.serviceAccount)) {
    problems.push(`--service-account: "${flags.serviceAccount}" is not a valid service account name`);
  }
  if (flags.image !== undefined && !/^\S+$/.test(flags.image))
    problems.push(`--image: "${flags.image}" is not an image reference`);
  if (problems.length > 0) {
    ctx.io.err(problems.join('\n'));
    ctx.result.code = EXIT_USAGE;
    return;
  }
  // Without a private image the forwarder ships as one bundled file in a ConfigMap, run by the Node.js image.
  const script = flags.image === undefined ? await bundleForwarder() : undefined;
  ctx.io.out(forwarderYaml({ ...flags, ...(script !== undefined ? { script } : {}) }));
  ctx.result.code = EXIT_OK;
}

export interface ForwarderRbacFlags {
  group: string;
  bindPods?: boolean;
  /** Commander's negation of --no-admission-policy: false when it is given. */
  admissionPolicy: boolean;
}

export function runForwarderRbac(ctx: CommandContext, flags: ForwarderRbacFlags): void {
  ctx.io.out(
    controllerRbacYaml({
      group: flags.group,
      bindPods: flags.bindPods === true,
      admissionPolicy: flags.admissionPolicy,
    }),
  );
  ctx.result.code = EXIT_OK;
}
