// Exponential backoff with full jitter, capped: spreads reconnects of many forwarders after a control-plane blip.

export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  /** 0..1 share of the delay that is randomized. */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 1_000, maxMs: 30_000, jitter: 0.2 };

export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy = DEFAULT_BACKOFF,
  random: () => number = Math.random,
): number {
  const base = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (1 - policy.jitter * random()));
}
