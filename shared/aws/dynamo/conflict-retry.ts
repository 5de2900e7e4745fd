// Re-read and retry after a lost optimistic-lock race. The callback sees the current claim each time and decides
// again (it may find the work already done and return without writing); the store never overwrites.
import type { NodeClaim } from '../../api/nodeclaim';
import { ConflictError } from '../../errors';
import type { NodeClaimStore } from '../../ports';

export interface ConflictRetryOptions {
  /** Total attempts, the first included. */
  attempts?: number;
  /** Base delay between attempts; jittered, doubled each time. 0 in tests. */
  baseDelayMs?: number;
}

/**
 * Runs `attempt` on the current claim named `name`, re-reading it after each ConflictError.
 * Returns `undefined` when the claim no longer exists; rethrows the last ConflictError once attempts run out.
 */
export async function withConflictRetry<T>(
  store: Pick<NodeClaimStore, 'get'>,
  name: string,
  attempt: (current: NodeClaim) => Promise<T>,
  options: ConflictRetryOptions = {},
): Promise<T | undefined> {
  const attempts = options.attempts ?? 3;
  const base = options.baseDelayMs ?? 20;
  let last: ConflictError | undefined;
  for (let i = 0; i < attempts; i++) {
    const current = await store.get(name);
    if (!current) return undefined;
    try {
      return await attempt(current);
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      last = err;
      if (base > 0 && i < attempts - 1) await new Promise((r) => setTimeout(r, Math.random() * base * 2 ** i));
    }
  }
  throw last ?? new ConflictError(`NodeClaim ${name}: gave up`);
}
