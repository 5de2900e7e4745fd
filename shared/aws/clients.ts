// Module-scope AWS clients, created once per warm Lambda container and configured for retries. Every AWS call in
// shared/aws goes through these so retry policy and region are decided in one place. aws-sdk-client-mock patches the
// client classes, so tests see every call made through them.
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EC2Client } from '@aws-sdk/client-ec2';
import { IAMClient } from '@aws-sdk/client-iam';
import { PricingClient } from '@aws-sdk/client-pricing';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface ClientOptions {
  region?: string;
  /** For dynalite or LocalStack; unset in Lambda. */
  endpoint?: string;
  maxAttempts?: number;
}

// Adaptive mode adds client-side rate limiting on top of the standard jittered backoff, which is what EC2's
// request-rate throttling wants.
const base = (o: ClientOptions) => ({
  region: o.region ?? process.env.AWS_REGION ?? 'us-east-1',
  maxAttempts: o.maxAttempts ?? 5,
  retryMode: 'adaptive' as const,
  ...(o.endpoint ? { endpoint: o.endpoint } : {}),
});

const cache = new Map<string, unknown>();

function memo<T>(key: string, o: ClientOptions, make: () => T): T {
  const k = `${key}|${o.region ?? ''}|${o.endpoint ?? ''}|${o.maxAttempts ?? ''}`;
  let c = cache.get(k) as T | undefined;
  if (!c) {
    c = make();
    cache.set(k, c);
  }
  return c;
}

export const ec2Client = (o: ClientOptions = {}) => memo('ec2', o, () => new EC2Client(base(o)));
export const cloudFormationClient = (o: ClientOptions = {}) =>
  memo('cloudformation', o, () => new CloudFormationClient(base(o)));
export const cloudWatchClient = (o: ClientOptions = {}) => memo('cloudwatch', o, () => new CloudWatchClient(base(o)));
export const ssmClient = (o: ClientOptions = {}) => memo('ssm', o, () => new SSMClient(base(o)));
export const iamClient = (o: ClientOptions = {}) => memo('iam', o, () => new IAMClient(base(o)));
/** The Pricing API answers only in a few regions; us-east-1 serves every region's prices. */
export const pricingClient = (o: ClientOptions = {}) =>
  memo('pricing', o, () => new PricingClient({ ...base(o), region: o.region ?? 'us-east-1' }));
export const dynamoDocumentClient = (o: ClientOptions = {}) =>
  memo('ddb', o, () =>
    DynamoDBDocumentClient.from(new DynamoDBClient(base(o)), {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    }),
  );
