// Translates client-node failures into ClusterApiError: retryable (throttling, server errors, timeouts, dropped
// connections) or final. A 403 names the verb and resource the identity lacks, so the fix (an RBAC rule) is obvious.
import { ClusterApiError } from '../errors';

/** What the adapter was doing, used when the server's Status does not say. */
export interface KubeAction {
  verb: string;
  resource: string;
  group?: string;
  name?: string;
}

export interface KubeStatus {
  code?: number;
  reason?: string;
  message?: string;
  details?: { name?: string; group?: string; kind?: string };
}

const RETRYABLE_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** The HTTP status of a client-node ApiException, or undefined for a transport failure. */
export function statusOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** The Kubernetes Status object carried in an ApiException body (client-node keeps it as text). */
export function kubeStatusOf(err: unknown): KubeStatus | undefined {
  const body = (err as { body?: unknown } | null)?.body;
  if (body && typeof body === 'object') return body as KubeStatus;
  if (typeof body !== 'string' || body.length === 0) return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    return parsed && typeof parsed === 'object' ? (parsed as KubeStatus) : undefined;
  } catch {
    return undefined;
  }
}

export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500 || status === 408;
}

function transportCode(err: unknown): string | undefined {
  let cursor: unknown = err;
  for (let depth = 0; cursor && depth < 4; depth++) {
    const c = cursor as { code?: unknown; errno?: unknown; name?: unknown; type?: unknown; cause?: unknown };
    if (typeof c.code === 'string') return c.code;
    if (typeof c.errno === 'string') return c.errno;
    if (c.name === 'AbortError' || c.name === 'TimeoutError' || c.type === 'aborted') return 'ETIMEDOUT';
    if (c.type === 'request-timeout') return 'ETIMEDOUT';
    cursor = c.cause;
  }
  return undefined;
}

export function classifyKubeError(err: unknown, action: KubeAction): ClusterApiError {
  if (err instanceof ClusterApiError) return err;
  const status = statusOf(err);
  const what = `${action.verb} ${qualified(action.resource, action.group)}${action.name ? ` "${action.name}"` : ''}`;
  if (status === undefined) {
    const code = transportCode(err);
    const message = err instanceof Error ? err.message : String(err);
    return new ClusterApiError(
      `${what}: ${code ?? 'request failed'}: ${message}`,
      undefined,
      (code !== undefined && RETRYABLE_CODES.has(code)) || code === undefined,
    );
  }
  const kube = kubeStatusOf(err);
  if (status === 403) {
    const fromMessage = kube?.message?.match(/cannot (\S+) resource "([^"]+)"(?: in API group "([^"]*)")?/);
    const verb = fromMessage?.[1] ?? action.verb;
    const resource = fromMessage?.[2] ?? kube?.details?.kind ?? action.resource;
    const group = fromMessage ? fromMessage[3] : (kube?.details?.group ?? action.group);
    return new ClusterApiError(
      `forbidden: the identity lacks RBAC verb "${verb}" on resource "${qualified(resource, group)}"` +
        `${kube?.message ? ` (${kube.message})` : ''}`,
      403,
      false,
    );
  }
  const detail = kube?.message ?? (err instanceof Error ? err.message : String(err));
  return new ClusterApiError(
    `${what}: HTTP ${status}${kube?.reason ? ` ${kube.reason}` : ''}: ${detail}`,
    status,
    isRetryableStatus(status),
  );
}

function qualified(resource: string, group: string | undefined): string {
  return group ? `${resource}.${group}` : resource;
}
