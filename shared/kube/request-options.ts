// Per-request options: a timeout (a hung API server would otherwise hold a Lambda until its own timeout) and, for
// patches, the Content-Type the API server needs to pick the patch strategy.
export interface CallOptions {
  timeoutMs: number;
  contentType?: string;
}

export const PATCH = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategicMerge: 'application/strategic-merge-patch+json',
} as const;

export function callOptions(timeoutMs: number, contentType?: string): CallOptions {
  return contentType ? { timeoutMs, contentType } : { timeoutMs };
}
