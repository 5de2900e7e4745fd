// The real ports of a function that never launches (EKS API through KubeClusterApi, EC2 through
// AwsInstanceProvider, the DynamoDB store, SQS queues), built once per warm container. launch-ports.ts adds the
// launching cloud adapter; nothing here imports it, so the termination and GC bundles leave it out. Handlers take a
// ports factory, so tests hand them the simulator instead.
import { EKSClient } from '@aws-sdk/client-eks';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { dynamoDocumentClient, ec2Client, pricingClient } from '../../shared/aws/clients';
import { DynamoPriceStore } from '../../shared/aws/dynamo/prices';
import { DynamoNodeClaimStore } from '../../shared/aws/dynamo/store';
import { createEksKubeConfig } from '../../shared/aws/eks-auth';
import { AwsInstanceProvider } from '../../shared/aws/instance-provider';
import type { PriceRefreshDeps } from '../../shared/aws/pricing/refresh';
import { SqsWorkQueue, sqsDeadLetter } from '../../shared/aws/sqs';
import type { ControlPlaneDeps, InstanceDeps } from '../../shared/controllers';
import type { TrustedSenders } from '../../shared/events';
import { KubeClusterApi } from '../../shared/kube';
import { systemClock } from '../../shared/ports';
import type { DeadLetter } from '../middleware/sqs-partial-batch';
import type { ControlPlaneEnv } from './env';

/** Everything a handler needs except logging and metrics, which belong to the function. An SQS consumer also gets
 * its queue's DLQ, where poison messages go at once (functions/middleware/sqs-partial-batch.ts). */
export type ControlPlanePorts = Omit<ControlPlaneDeps, 'log' | 'metric'> & ConsumerPorts;

/** The ports of a function that never plans or launches (termination, GC); ControlPlanePorts are also these. */
export type InstancePorts = Omit<InstanceDeps, 'log' | 'metric'> & ConsumerPorts;

/** What an SQS consumer adds: its queue's DLQ, and who may send the cluster queue's commands (shared/events/trust.ts;
 * every deployed function has them, a harness without IAM identities may leave them out). */
export interface ConsumerPorts {
  deadLetter?: DeadLetter;
  trustedSenders?: TrustedSenders;
}

/** Builds a handler's ports once per container (functions/middleware/cold-start-ports.ts). */
export type PortsFactory<P extends InstancePorts = ControlPlanePorts> = (context: Context) => Promise<P> | P;

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

/** What the GC function's RefreshPrices tick needs (shared/aws/pricing/refresh.ts): the Pricing API, EC2's spot
 * price history and the table's price item. */
export type PriceRefreshPorts = Pick<PriceRefreshDeps, 'pricing' | 'ec2' | 'region' | 'store'>;

/** The GC function's ports: an instance-only function's, plus the price refresh. */
export interface GcPorts extends InstancePorts {
  prices?: PriceRefreshPorts;
}

export async function awsGcPorts(env: ControlPlaneEnv): Promise<GcPorts> {
  const ports = await awsInstancePorts(env);
  const store = new DynamoPriceStore({
    client: dynamoDocumentClient({ region: env.region }),
    tableName: env.tableName,
    cluster: env.cluster,
  });
  return {
    ...ports,
    prices: { pricing: pricingClient(), ec2: ec2Client({ region: env.region }), region: env.region, store },
  };
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
    ...(env.trustedSenders ? { trustedSenders: env.trustedSenders } : {}),
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
