// Production wiring shared by the control-plane functions: configuration from the environment, the real ports of a
// function that never launches (EKS API through KubeClusterApi, EC2 through AwsInstanceProvider, DynamoDB store, SQS
// queues) built once per warm container, and the adapters from Powertools' Logger and Metrics to the use-cases'
// callbacks. launch-ports.ts adds the launching cloud adapter; nothing here imports it, so the termination and GC
// bundles leave it out. Handlers take a ports factory, so tests hand them the simulator instead.
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { EKSClient } from '@aws-sdk/client-eks';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { dynamoDocumentClient } from '../../shared/aws/clients';
import { DynamoNodeClaimStore } from '../../shared/aws/dynamo/store';
import { createEksKubeConfig } from '../../shared/aws/eks-auth';
import { AwsInstanceProvider } from '../../shared/aws/instance-provider';
import { sqsDeadLetter } from '../../shared/aws/sqs';
import {
  type ControlPlaneConfig,
  type ControlPlaneDeps,
  type ControlPlaneLog,
  controlPlaneConfig,
  type InstanceDeps,
  type MetricFn,
  type RebalancePolicy,
} from '../../shared/controllers';
import { KubeClusterApi } from '../../shared/kube';
import { type QueueMessage, systemClock, type WorkQueue } from '../../shared/ports';
import type { DeadLetter } from '../middleware';

/** Everything a handler needs except logging and metrics, which belong to the function. An SQS consumer also gets
 * its queue's DLQ, where poison messages go at once (functions/middleware/sqs-partial-batch.ts). */
export type ControlPlanePorts = Omit<ControlPlaneDeps, 'log' | 'metric'> & { deadLetter?: DeadLetter };

/** The ports of a function that never plans or launches (termination, GC); ControlPlanePorts are also these. */
export type InstancePorts = Omit<InstanceDeps, 'log' | 'metric'> & { deadLetter?: DeadLetter };

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
  const bind = env.BIND_PODS ?? 'true';
  if (bind !== 'true' && bind !== 'false') problems.push(`BIND_PODS: "${bind}" is not true or false`);
  const rebalance = env.REBALANCE ?? 'record';
  if (rebalance !== 'record' && rebalance !== 'interrupt') {
    problems.push(`REBALANCE: "${rebalance}" is not one of record, interrupt`);
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
    config: controlPlaneConfig({ bindPods: bind === 'true', rebalance: rebalance as RebalancePolicy }),
  };
}

/** SendMessage to one queue. FIFO queues take a group and deduplication id but no per-message delay; standard
 * queues the reverse. */
export class SqsWorkQueue implements WorkQueue {
  private readonly fifo: boolean;

  constructor(
    private readonly client: SQSClient,
    private readonly url: string,
  ) {
    this.fifo = url.endsWith('.fifo');
  }

  async send(message: QueueMessage): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.url,
        MessageBody: message.body,
        ...(this.fifo
          ? {
              MessageGroupId: message.groupId,
              ...(message.deduplicationId ? { MessageDeduplicationId: message.deduplicationId } : {}),
            }
          : message.delaySeconds
            ? { DelaySeconds: message.delaySeconds }
            : {}),
      }),
    );
  }
}

/** Builds the real ports of a function that only drains, terminates and collects garbage: no DescribeCluster, no
 * price read, and a cloud adapter without the launch path, so none of it is in the bundle. */
export async function awsInstancePorts(env: ControlPlaneEnv): Promise<InstancePorts> {
  const kube = await kubeFor(env, new EKSClient({ region: env.region }));
  const cloud = new AwsInstanceProvider({
    cluster: { name: env.cluster, region: env.region },
    ...(env.catalogPath ? { catalogPath: env.catalogPath } : {}),
  });
  return { ...statePorts(env), kube, cloud };
}

/** The store, the queues and the settings every function's ports share. */
export function statePorts(env: ControlPlaneEnv): Omit<InstancePorts, 'kube' | 'cloud'> {
  const ddb = dynamoDocumentClient({ region: env.region });
  const sqs = new SQSClient({ region: env.region });
  return {
    cluster: env.cluster,
    store: new DynamoNodeClaimStore({ tableName: env.tableName, cluster: env.cluster, client: ddb }),
    queue: new SqsWorkQueue(sqs, env.queueUrl),
    ...(env.terminationQueueUrl ? { terminationQueue: new SqsWorkQueue(sqs, env.terminationQueueUrl) } : {}),
    ...(env.deadLetterQueueUrl ? { deadLetter: sqsDeadLetter(sqs, env.deadLetterQueueUrl) } : {}),
    clock: systemClock,
    config: env.config,
  };
}

export async function kubeFor(env: ControlPlaneEnv, eks: EKSClient): Promise<KubeClusterApi> {
  const kubeConfig = await createEksKubeConfig({
    cluster: env.cluster,
    region: env.region,
    ...(env.endpoint ? { endpoint: env.endpoint } : {}),
    ...(env.caData ? { caData: env.caData } : {}),
    eks,
  });
  return new KubeClusterApi(kubeConfig, { component: 'karpless' });
}

interface LoggerLike {
  debug(message: string, ...extra: Record<string, unknown>[]): void;
  info(message: string, ...extra: Record<string, unknown>[]): void;
  warn(message: string, ...extra: Record<string, unknown>[]): void;
  error(message: string, ...extra: Record<string, unknown>[]): void;
}

export function logFor(logger: LoggerLike): ControlPlaneLog {
  return {
    debug: (m, f) => (f ? logger.debug(m, f) : logger.debug(m)),
    info: (m, f) => (f ? logger.info(m, f) : logger.info(m)),
    warn: (m, f) => (f ? logger.warn(m, f) : logger.warn(m)),
    error: (m, f) => (f ? logger.error(m, f) : logger.error(m)),
  };
}

type PowertoolsUnit = (typeof MetricUnit)[keyof typeof MetricUnit];

const UNITS: Record<string, PowertoolsUnit> = {
  Count: MetricUnit.Count,
  Milliseconds: MetricUnit.Milliseconds,
  Seconds: MetricUnit.Seconds,
  None: MetricUnit.NoUnit,
};

/** Metrics without extra dimensions join the invocation's EMF blob; ones with dimensions go out as single metrics. */
export function metricFor(metrics: Metrics): MetricFn {
  return (name, value, unit = 'Count', dimensions) => {
    const u = UNITS[unit] ?? MetricUnit.NoUnit;
    if (!dimensions || Object.keys(dimensions).length === 0) {
      metrics.addMetric(name, u, value);
      return;
    }
    const single = metrics.singleMetric();
    for (const [k, v] of Object.entries(dimensions)) single.addDimension(k, v);
    single.addMetric(name, u, value);
  };
}

/** The use-cases' deps: the function's ports with its logger and metrics. */
export type DepsOf<P extends InstancePorts> = P & Pick<InstanceDeps, 'log' | 'metric'>;

export function depsFor<P extends InstancePorts>(ports: P, logger: LoggerLike, metrics: Metrics): DepsOf<P> {
  return { ...ports, log: logFor(logger), metric: metricFor(metrics) };
}
