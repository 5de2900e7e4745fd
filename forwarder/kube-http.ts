// A minimal Kubernetes HTTP client for the forwarder: GET a JSON page, or stream a watch as JSON lines. Written on
// node:http(s) rather than @kubernetes/client-node so the image holds no model classes or extra dependencies and
// each watch line is parsed, reduced to a Slim and dropped.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';

export interface KubeEndpoint {
  /** https://host:port inside the cluster; http:// for local test servers. */
  server: string;
  /** Read per request: projected service-account tokens rotate. */
  token?: () => string | undefined;
  ca?: Buffer;
}

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The in-cluster endpoint from the service-account mount, or KUBE_API_URL for local runs and tests. */
export function endpointFromEnv(env: NodeJS.ProcessEnv = process.env): KubeEndpoint {
  if (env.KUBE_API_URL) return { server: env.KUBE_API_URL, token: () => env.KUBE_TOKEN };
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT ?? '443';
  if (!host) throw new Error('not running in a cluster: set KUBE_API_URL or KUBERNETES_SERVICE_HOST');
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    server,
    ca: readFileSync(`${SA_DIR}/ca.crt`),
    token: () => readFileSync(`${SA_DIR}/token`, 'utf8').trim(),
  };
}

export class KubeHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class KubeHttp {
  private readonly agent: http.Agent;
  private readonly lib: typeof http | typeof https;
  private readonly open = new Set<http.ClientRequest>();

  constructor(private readonly endpoint: KubeEndpoint) {
    const secure = endpoint.server.startsWith('https:');
    this.lib = secure ? https : http;
    this.agent = secure
      ? new https.Agent({ keepAlive: true, maxSockets: 8, ca: endpoint.ca })
      : new http.Agent({ keepAlive: true, maxSockets: 8 });
  }

  async getJson<T>(path: string, timeoutMs = 30_000): Promise<T> {
    let body = '';
    await this.request(path, timeoutMs, (chunk) => {
      body += chunk;
    });
    return JSON.parse(body) as T;
  }

  /** Streams a watch; `onLine` gets each parsed event. Resolves when the server ends the stream. */
  watch(path: string, idleTimeoutMs: number, onLine: (event: unknown) => void): Promise<void> {
    let rest = '';
    return this.request(path, idleTimeoutMs, (chunk) => {
      rest += chunk;
      let nl = rest.indexOf('\n');
      while (nl >= 0) {
        const line = rest.slice(0, nl).trim();
        rest = rest.slice(nl + 1);
        if (line) onLine(JSON.parse(line));
        nl = rest.indexOf('\n');
      }
    });
  }

  /** Aborts every open request (shutdown). */
  close(): void {
    for (const req of this.open) req.destroy(new Error('closed'));
    this.agent.destroy();
  }

  private request(path: string, idleTimeoutMs: number, onChunk: (chunk: string) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      const url = new URL(path, this.endpoint.server);
      const token = this.endpoint.token?.();
      const req = this.lib.request(
        url,
        {
          method: 'GET',
          agent: this.agent,
          headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        },
        (res) => {
          res.setEncoding('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status > 299) {
            let text = '';
            res.on('data', (c: string) => {
              if (text.length < 4096) text += c;
            });
            res.on('end', () =>
              reject(new KubeHttpError(status, `GET ${url.pathname}: HTTP ${status} ${text.slice(0, 300)}`)),
            );
            res.on('error', reject);
            return;
          }
          res.on('data', (c: string) => {
            try {
              onChunk(c);
            } catch (err) {
              req.destroy(err instanceof Error ? err : new Error(String(err)));
            }
          });
          res.on('end', () => resolve());
          res.on('error', reject);
          res.on('aborted', () => reject(new Error(`GET ${url.pathname}: connection aborted`)));
        },
      );
      this.open.add(req);
      req.on('close', () => this.open.delete(req));
      // An idle socket (no bytes for this long) is a dead connection, not a quiet watch: the server sends
      // bookmarks and ends watches by timeoutSeconds well before this fires.
      req.setTimeout(idleTimeoutMs, () => req.destroy(new Error(`GET ${url.pathname}: idle for ${idleTimeoutMs} ms`)));
      req.on('error', reject);
      req.end();
    });
  }
}
