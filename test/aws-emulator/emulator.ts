// Real SDK clients pointed at the run's moto_server (test/setup/aws-emulator.global.ts). Every test file takes a
// fresh AWS account (moto keeps separate state per account, chosen by the x-moto-account-id header), so files
// running in parallel on one server never see each other's VPCs, instances, queues or tables.
import { randomInt } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EC2Client } from '@aws-sdk/client-ec2';
import { IAMClient } from '@aws-sdk/client-iam';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';

export const EMULATOR_CREDENTIALS = { accessKeyId: 'testing', secretAccessKey: 'testing' };

/** Something with an SDK middleware stack (every v3 client; their stacks differ only in their types). */
interface WithMiddleware {
  middlewareStack: { add(...args: never[]): void };
}

interface BuildStack {
  add(
    m: (next: (args: { request: unknown }) => Promise<unknown>) => (args: { request: unknown }) => Promise<unknown>,
    o: { step: 'build'; name: string },
  ): void;
}

export interface Emulator {
  endpoint: string;
  account: string;
  region: string;
  ec2: EC2Client;
  ssm: SSMClient;
  iam: IAMClient;
  sqs: SQSClient;
  dynamo: DynamoDBClient;
  documents: DynamoDBDocumentClient;
  /** Any other client, configured the same way (endpoint, credentials, account). */
  client<C extends WithMiddleware>(make: (config: ClientConfig) => C): C;
}

/** Every command `client` sends from now on, as the SDK serializes it: for the request parts moto accepts but does
 * not model (each use says which). */
export function recordCommands(client: WithMiddleware): { command: string; input: unknown }[] {
  const sent: { command: string; input: unknown }[] = [];
  (client.middlewareStack as unknown as InitializeStack).add(
    (next, context) => (args) => {
      sent.push({ command: String(context.commandName), input: args.input });
      return next(args);
    },
    { step: 'initialize', name: `recordCommands${Math.random()}` },
  );
  return sent;
}

interface InitializeStack {
  add(
    m: (
      next: (args: { input: unknown }) => Promise<unknown>,
      context: { commandName?: string },
    ) => (args: { input: unknown }) => Promise<unknown>,
    o: { step: 'initialize'; name: string },
  ): void;
}

export interface ClientConfig {
  endpoint: string;
  region: string;
  credentials: typeof EMULATOR_CREDENTIALS;
  maxAttempts: number;
}

/** A fresh 12-digit account on the run's moto_server. */
export function emulator(o: { region?: string; account?: string } = {}): Emulator {
  const endpoint = inject('awsEndpoint');
  const account = o.account ?? String(randomInt(100_000_000_000, 999_999_999_999));
  const region = o.region ?? 'us-east-1';
  const config: ClientConfig = { endpoint, region, credentials: EMULATOR_CREDENTIALS, maxAttempts: 2 };
  const client = <C extends WithMiddleware>(make: (c: ClientConfig) => C): C => {
    const c = make(config);
    (c.middlewareStack as unknown as BuildStack).add(
      (next) => (args) => {
        const request = args.request as { headers?: Record<string, string> };
        if (request.headers) request.headers['x-moto-account-id'] = account;
        return next(args);
      },
      { step: 'build', name: 'motoAccount' },
    );
    return c;
  };
  const dynamo = client((c) => new DynamoDBClient(c));
  return {
    endpoint,
    account,
    region,
    ec2: client((c) => new EC2Client(c)),
    ssm: client((c) => new SSMClient(c)),
    iam: client((c) => new IAMClient(c)),
    sqs: client((c) => new SQSClient(c)),
    dynamo,
    documents: DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } }),
    client,
  };
}
