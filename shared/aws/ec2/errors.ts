// Classifying EC2 failures into the port's errors. Codes and their meaning follow EC2's documented error codes and
// what Karpenter treats as "no capacity right now" (retry elsewhere) versus "fix your account or config".
import { DecodeAuthorizationMessageCommand, type STSClient } from '@aws-sdk/client-sts';
import { LaunchError } from '../../errors';

/** Fleet error codes that mean "this offering has no capacity for you now": cache it unavailable, re-plan. */
export const INSUFFICIENT_CAPACITY_CODES: ReadonlySet<string> = new Set([
  'InsufficientInstanceCapacity',
  'InsufficientCapacity',
  'InsufficientHostCapacity',
  'InsufficientReservedInstanceCapacity',
  'UnfulfillableCapacity',
  'MaxSpotInstanceCountExceeded',
  'VcpuLimitExceeded',
  'InsufficientFreeAddressesInSubnet',
  'ReservationCapacityExceeded',
  'Unsupported',
]);

export const THROTTLING_CODES: ReadonlySet<string> = new Set([
  'RequestLimitExceeded',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'SlowDown',
]);

export const errorCode = (err: unknown): string => {
  const e = err as { name?: string; Code?: string; code?: string } | undefined;
  return e?.Code ?? e?.code ?? e?.name ?? 'Unknown';
};

export const isThrottling = (err: unknown) => THROTTLING_CODES.has(errorCode(err));

export const isNotFound = (err: unknown) => /\.NotFound$|NotFoundException$/.test(errorCode(err));

/**
 * Runs `fn`, retrying throttling with full-jitter exponential backoff on top of the SDK's own retries (a burst of
 * launches can outlast them). Gives up with a retryable LaunchError.
 */
export async function withThrottleRetry<T>(
  operation: string,
  fn: () => Promise<T>,
  o: { attempts?: number; baseMs?: number; sleep?: (ms: number) => Promise<void> } = {},
): Promise<T> {
  const attempts = o.attempts ?? 4;
  const base = o.baseMs ?? 250;
  const sleep = o.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (!isThrottling(err)) throw err;
      if (i >= attempts - 1) {
        throw new LaunchError(
          'throttled',
          `${operation}: throttled by EC2 after ${attempts} attempts (${errorCode(err)})`,
        );
      }
      await sleep(Math.random() * base * 2 ** i);
    }
  }
}

const ENCODED = /Encoded authorization failure message:\s*(\S+)/;

/**
 * The permission an UnauthorizedOperation is about. EC2 hides it in an encoded message; sts:DecodeAuthorizationMessage
 * reveals the action (and needs its own permission, so failing to decode falls back to naming the API call).
 */
export async function missingPermission(
  message: string,
  fallbackAction: string,
  sts?: STSClient,
): Promise<{ action: string; resource?: string }> {
  const encoded = ENCODED.exec(message)?.[1];
  if (encoded && sts) {
    try {
      const out = await sts.send(new DecodeAuthorizationMessageCommand({ EncodedMessage: encoded }));
      const decoded = JSON.parse(out.DecodedMessage ?? '{}') as { context?: { action?: string; resource?: string } };
      if (decoded.context?.action) {
        return decoded.context.resource
          ? { action: decoded.context.action, resource: decoded.context.resource }
          : { action: decoded.context.action };
      }
    } catch {
      // Decoding is best effort: the caller still names the call that failed.
    }
  }
  const named = /not authorized to perform:?\s*([a-z0-9-]+:[A-Za-z0-9]+)/i.exec(message)?.[1];
  return { action: named ?? fallbackAction };
}

export async function unauthorizedError(
  message: string,
  fallbackAction: string,
  sts?: STSClient,
): Promise<LaunchError> {
  const p = await missingPermission(message, fallbackAction, sts);
  return new LaunchError(
    'unauthorized',
    `missing IAM permission ${p.action}${p.resource ? ` on ${p.resource}` : ''}: grant it to the Karpless role (see docs/aws.md)`,
  );
}

/** A fleet-level or call-level error that is not about capacity, as the port's LaunchError. */
export async function classifyLaunchFailure(
  code: string,
  message: string,
  fallbackAction: string,
  sts?: STSClient,
): Promise<LaunchError> {
  if (code === 'UnauthorizedOperation' || code === 'AccessDenied' || code === 'AccessDeniedException') {
    return unauthorizedError(message, fallbackAction, sts);
  }
  if (code === 'AuthFailure.ServiceLinkedRoleCreationNotPermitted') {
    return new LaunchError(
      'service-linked-role',
      'the EC2 Spot service-linked role does not exist and Karpless may not create it: run `aws iam create-service-linked-role --aws-service-name spot.amazonaws.com` once, or grant iam:CreateServiceLinkedRole for spot.amazonaws.com',
    );
  }
  if (
    code === 'SpotInstancesNotSupported' ||
    (/^(UnsupportedOperation|InvalidParameterCombination|OptInRequired|InvalidFleetConfiguration)$/.test(code) &&
      /spot/i.test(message))
  ) {
    return new LaunchError(
      'spot-disabled',
      `spot capacity is not available to this account (${code}: ${message}); allow on-demand in the NodePool or ask AWS to enable Spot`,
    );
  }
  if (THROTTLING_CODES.has(code)) return new LaunchError('throttled', `${fallbackAction}: throttled (${code})`);
  if (/^Invalid|^MissingParameter|NotFound$/.test(code)) {
    return new LaunchError(
      'invalid-config',
      `${fallbackAction} rejected the launch configuration: ${code}: ${message}`,
    );
  }
  return new LaunchError('unknown', `${fallbackAction} failed: ${code}: ${message}`);
}
