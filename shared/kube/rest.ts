// The adapter's REST calls on node:http(s), with client-node's KubeConfig supplying the server, the CA and the
// credentials (applyToHTTPSOptions runs its authenticators per request, so the EKS token stays fresh). The generated
// API classes would add ~1.3 MiB of models and serializers to every Lambda bundle for a dozen plain JSON calls, and
// the adapter trims raw JSON anyway (trim.ts).
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/** A non-2xx answer; `code` and the Status text in `body` are what errors.ts reads (the shape of an ApiException). */
export class KubeStatusError extends Error {
  constructor(
    readonly code: number,
    readonly body: string,
  ) {
    super(`HTTP ${code}: ${body.slice(0, 500)}`);
    this.name = 'KubeStatusError';
  }
}

export interface KubeRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Absolute API path, e.g. /api/v1/nodes/n1 (names already encoded). */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Defaults to application/json when there is a body; patches name their strategy. */
  contentType?: string;
  timeoutMs: number;
}

export class KubeRest {
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 16 });
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 16 });

  constructor(private readonly kc: KubeConfig) {}

  async request<T = unknown>(req: KubeRequest): Promise<T> {
    const server = this.kc.getCurrentCluster()?.server;
    if (!server) throw new Error('kubeconfig has no current cluster server');
    const url = new URL(`${server.replace(/\/+$/, '')}${req.path}`);
    for (const [k, v] of Object.entries(req.query ?? {}))
      if (v !== undefined && v !== '') url.searchParams.set(k, `${v}`);
    const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
    const options: https.RequestOptions = {
      method: req.method,
      headers: {
        Accept: 'application/json',
        ...(payload !== undefined && {
          'Content-Type': req.contentType ?? 'application/json',
          'Content-Length': Buffer.byteLength(payload),
        }),
      },
    };
    await this.kc.applyToHTTPSOptions(options);
    const secure = url.protocol === 'https:';
    const lib = secure ? https : http;
    options.agent = secure ? this.httpsAgent : this.httpAgent;
    return new Promise<T>((resolve, reject) => {
      const request = lib.request(url, options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', fail);
        res.on('end', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) return reject(new KubeStatusError(status, text));
          try {
            resolve((text ? JSON.parse(text, normalizeTimes) : undefined) as T);
          } catch (err) {
            reject(new Error(`${req.method} ${req.path}: response is not JSON (${(err as Error).message})`));
          }
        });
      });
      function fail(err: Error) {
        clearTimeout(timer);
        reject(err);
      }
      // A whole-request deadline (headers and body), reported as ETIMEDOUT so errors.ts treats it as retryable.
      const timer = setTimeout(() => {
        const err = Object.assign(new Error(`no complete answer within ${req.timeoutMs} ms`), { code: 'ETIMEDOUT' });
        request.destroy(err);
        fail(err);
      }, req.timeoutMs);
      request.on('error', fail);
      request.end(payload);
    });
  }
}

/** `/api/v1/...` for the core group, `/apis/<group>/<version>/...` otherwise. */
export function apiPath(group: string, version: string, ...segments: string[]): string {
  const base = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
  return [base, ...segments.map(encodeURIComponent)].join('/');
}

/** The RFC 3339 timestamps the adapter keeps; client-node's models turned them into Dates. */
const TIME_FIELDS = new Set(['creationTimestamp', 'deletionTimestamp', 'lastTransitionTime']);

/**
 * Writes those timestamps as Date#toISOString does (milliseconds, UTC), so the adapter's output is what it was on
 * the generated API classes and timestamps from every source compare as strings.
 */
function normalizeTimes(key: string, value: unknown): unknown {
  if (typeof value !== 'string' || !TIME_FIELDS.has(key)) return value;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : new Date(ms).toISOString();
}
