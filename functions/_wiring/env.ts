// A function's configuration, read once from the environment the stack sets (stacks/constructs/control-functions.ts):
// the cluster, its table and queues, the optional EKS facts that save a DescribeCluster, and the control-plane
// settings. A missing or malformed variable is named in the error, so a bad deployment fails at cold start.
import { type ControlPlaneConfig, controlPlaneConfig, type RebalancePolicy } from '../../shared/controllers';
import { DISRUPTION_SETTINGS_ENV, disruptionSettingsFromEnv } from '../../shared/disruption';
import { ValidationError } from '../../shared/errors';
import { parseTrustedSenders, type TrustedSenders } from '../../shared/events';

export interface ControlPlaneEnv {
  cluster: string;
  region: string;
  tableName: string;
  /** The cluster FIFO queue (re-plan hints, sweep, forwarder batches). */
  queueUrl: string;
  /** A standard queue for termination steps (per-message delays); the cluster queue when unset. */
  terminationQueueUrl?: string;
  /** The DLQ of the queue this function consumes (DLQ_URL); poison messages are sent there at once. */
  deadLetterQueueUrl?: string;
  endpoint?: string;
  caData?: string;
  serviceCidr?: string;
  kubernetesVersion?: string;
  catalogPath?: string;
  /** The roles that may send the cluster queue's commands (TRUSTED_SENDERS); the stack sets it for the queue's
   * consumer, which refuses to start without it (functions/provisioner/handler.ts). */
  trustedSenders?: TrustedSenders;
  config: ControlPlaneConfig;
}

/** Reads the function's configuration; a missing or malformed variable is named in the error. */
export function readEnv(env: NodeJS.ProcessEnv = process.env): ControlPlaneEnv {
  const problems: string[] = [];
  const required = (name: string): string => {
    const v = env[name];
    if (!v) problems.push(`environment variable ${name} is required`);
    return v ?? '';
  };
  const optional = (name: string): Record<string, string> => (env[name] ? { [name]: env[name] as string } : {});
  const cluster = required('CLUSTER_NAME');
  const tableName = required('TABLE_NAME');
  const queueUrl = required('QUEUE_URL');
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? '';
  if (!region) problems.push('environment variable AWS_REGION is required');
  // Off unless set: kube-scheduler binds, as under Karpenter (docs/kubernetes.md, "Binding").
  const bind = env.BIND_PODS ?? 'false';
  if (bind !== 'true' && bind !== 'false') problems.push(`BIND_PODS: "${bind}" is not true or false`);
  const rebalance = env.REBALANCE ?? 'record';
  if (rebalance !== 'record' && rebalance !== 'interrupt') {
    problems.push(`REBALANCE: "${rebalance}" is not one of record, interrupt`);
  }
  const disruption = disruptionSettingsFromEnv(env[DISRUPTION_SETTINGS_ENV], (m) => problems.push(m));
  let trustedSenders: TrustedSenders | undefined;
  try {
    if (env.TRUSTED_SENDERS) trustedSenders = parseTrustedSenders(env.TRUSTED_SENDERS);
  } catch (err) {
    problems.push(err instanceof ValidationError ? err.problems.join('; ') : String(err));
  }
  if (problems.length) throw new Error(`invalid function configuration: ${problems.join('; ')}`);
  const o = {
    ...optional('TERMINATION_QUEUE_URL'),
    ...optional('DLQ_URL'),
    ...optional('CLUSTER_ENDPOINT'),
    ...optional('CLUSTER_CA'),
    ...optional('SERVICE_CIDR'),
    ...optional('KUBERNETES_VERSION'),
    ...optional('CATALOG_PATH'),
  };
  return {
    cluster,
    region,
    tableName,
    queueUrl,
    ...(o.TERMINATION_QUEUE_URL ? { terminationQueueUrl: o.TERMINATION_QUEUE_URL } : {}),
    ...(o.DLQ_URL ? { deadLetterQueueUrl: o.DLQ_URL } : {}),
    ...(o.CLUSTER_ENDPOINT ? { endpoint: o.CLUSTER_ENDPOINT } : {}),
    ...(o.CLUSTER_CA ? { caData: o.CLUSTER_CA } : {}),
    ...(o.SERVICE_CIDR ? { serviceCidr: o.SERVICE_CIDR } : {}),
    ...(o.KUBERNETES_VERSION ? { kubernetesVersion: o.KUBERNETES_VERSION } : {}),
    ...(o.CATALOG_PATH ? { catalogPath: o.CATALOG_PATH } : {}),
    ...(trustedSenders ? { trustedSenders } : {}),
    config: controlPlaneConfig({
      bindPods: bind === 'true',
      rebalance: rebalance as RebalancePolicy,
      disruption,
      // The NodePools Karpless owns during a cut-over (shared/controllers/ownership.ts); unset: every NodePool.
      ...(env.OWNED_NODEPOOLS ? { ownedNodePools: env.OWNED_NODEPOOLS.split(',').filter(Boolean) } : {}),
    }),
  };
}
