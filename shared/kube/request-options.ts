// Per-request client-node options: a timeout (client-node sets none, and a hung API server would otherwise hold a
// Lambda until its own timeout) and, for patches, the Content-Type the API server needs to pick the patch strategy.
import type { ConfigurationOptions, RequestContext, ResponseContext } from '@kubernetes/client-node';

export type CallOptions = ConfigurationOptions;

export const PATCH = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategicMerge: 'application/strategic-merge-patch+json',
} as const;

// The object-parameter API runs middleware through its observable stub, which only ever calls `toPromise()`.
const settled = <T>(value: T) => ({ toPromise: () => Promise.resolve(value) });

export function callOptions(timeoutMs: number, contentType?: string): CallOptions {
  const pre = (ctx: RequestContext) => {
    ctx.setSignal(AbortSignal.timeout(timeoutMs));
    if (contentType) ctx.setHeaderParam('Content-Type', contentType);
    return settled(ctx);
  };
  const post = (res: ResponseContext) => settled(res);
  return { middleware: [{ pre, post }], middlewareMergeStrategy: 'append' } as unknown as CallOptions;
}
