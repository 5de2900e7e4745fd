// How much of the region's Lambda concurrency one cluster may take, and how much it keeps for itself (docs/aws.md,
// "Lambda concurrency"). Every event source has a maximum concurrency, so no burst in one cluster takes more than its
// share of the account's pool; the interruption and termination functions also reserve concurrency, so nothing else
// in the account (another cluster's burst included) can starve the spot-warning path. Reservations come out of the
// account's pool, so their defaults depend on how many clusters of the file share an account and region.

/** The SQS event sources: the cluster FIFO queue (the provisioner), interruption and termination. */
export type ConcurrencyQueue = 'events' | 'interruption' | 'termination';
/** The functions that may reserve concurrency: the interruption path. */
export type ReservingFunction = 'interruption' | 'termination';

export interface ConcurrencyConfig {
  /** Each event source's maximum concurrency (SQS event source `maxConcurrency`, 2 to 1000). */
  maximum: Record<ConcurrencyQueue, number>;
  /** Reserved concurrent executions (0: none). Lambda caps a function at its reservation, so a reservation below its
   * event source's maximum would throttle, and a throttled SQS batch returns only after the visibility timeout. */
  reserved: Record<ReservingFunction, number>;
}

/** Lambda's default concurrency quota per account and region, and what it always keeps unreserved. */
export const ACCOUNT_CONCURRENCY = 1_000;
export const UNRESERVED_MINIMUM = 100;
/** What the clusters of one account and region may reserve in all, under the default quota. */
export const RESERVABLE = ACCOUNT_CONCURRENCY - UNRESERVED_MINIMUM;

/** SQS event sources accept a maximum concurrency from 2 to 1000. */
export const MAXIMUM_RANGE = { min: 2, max: 1_000 } as const;

/** The provisioner needs one at a time (one message group per cluster); 2 is the least SQS takes. The interruption
 * path gets 2 each: a mass spot reclaim's warnings arrive in batches of ten. */
export const DEFAULT_MAXIMUM: Readonly<Record<ConcurrencyQueue, number>> = {
  events: 2,
  interruption: 2,
  termination: 2,
};

/**
 * The default reservations for a cluster in an account and region shared by `clusters` clusters of the file: both
 * functions reserve their maximum while the fleet fits RESERVABLE; then only the interruption function (the
 * two-minute path); past that nothing is reserved, and each cluster's share is bounded by its event sources' maxima
 * alone. 225 clusters fit with both, 450 with the interruption function's alone.
 */
export function defaultReserved(
  clusters: number,
  maximum: Readonly<Record<ConcurrencyQueue, number>>,
): Record<ReservingFunction, number> {
  const both = maximum.interruption + maximum.termination;
  if (clusters * both <= RESERVABLE) return { interruption: maximum.interruption, termination: maximum.termination };
  if (clusters * maximum.interruption <= RESERVABLE) return { interruption: maximum.interruption, termination: 0 };
  return { interruption: 0, termination: 0 };
}
