// Errors that cross the port boundary. Adapters translate SDK errors into these so the engine and handlers can
// decide (retry, cache, fail the claim) without knowing which cloud or client produced them.

/** A lost optimistic-lock race: someone else wrote first. Re-read and decide again; never overwrite. */
export class ConflictError extends Error {
  override readonly name = 'ConflictError';
}

/** An offering the cloud refused; the catalog's UnavailableOffering without its expiry (restated here so errors.ts,
 * the bottom of the engine, imports nothing). */
export interface RefusedOffering {
  instanceType: string;
  zone: string;
  capacityType: 'spot' | 'on-demand' | 'reserved';
  /** The reservation a `reserved` offering launched into. */
  reservationId?: string;
  reason?: string;
}

/** The cloud had no capacity for these offerings. They are cached as unavailable and the claim is re-planned. */
export class InsufficientCapacityError extends Error {
  override readonly name = 'InsufficientCapacityError';
  constructor(
    message: string,
    readonly offerings: RefusedOffering[],
  ) {
    super(message);
  }
}

export type LaunchErrorKind =
  | 'unauthorized'
  | 'spot-disabled'
  | 'service-linked-role'
  | 'invalid-config'
  | 'throttled'
  | 'unknown';

export class LaunchError extends Error {
  override readonly name = 'LaunchError';
  constructor(
    readonly kind: LaunchErrorKind,
    message: string,
    readonly retryable = kind === 'throttled',
  ) {
    super(message);
  }
}

/** A Kubernetes API failure, already classified. */
export class ClusterApiError extends Error {
  override readonly name = 'ClusterApiError';
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** Input that failed validation; the message names the file, document, object and field path. */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}
