// A local HTTP server that speaks the Kubernetes REST paths Karpless uses: lists with limit/continue and field
// and label selectors, watches (JSON lines, 410 Gone after compaction), get, patch (JSON, merge and strategic merge), delete,
// pods/binding, pods/eviction and event creation; a DELETE of an object with finalizers marks it until they are
// removed, as the API server does. Every request is recorded so tests can assert methods, paths,
// query strings, content types and bodies. `override` lets a test answer a request itself (errors, outages).
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { compileFieldSelector, compileLabelSelector } from './field-selector';
import { applyPatch, PatchTestFailed } from './patch';
import { parseResourcePath, type ResourcePath } from './paths';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType: string | undefined;
  headers: IncomingHttpHeaders;
  body: unknown;
  resource: ResourcePath | undefined;
}

export interface FakeReply {
  status: number;
  body?: unknown;
}

export type Override = (request: RecordedRequest) => FakeReply | undefined;

type KubeObject = {
  metadata: { name: string; namespace?: string; resourceVersion?: string; [k: string]: unknown };
} & Record<string, unknown>;

interface Change {
  rv: number;
  resource: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
  previous: KubeObject | undefined;
}

interface Watcher {
  resource: string;
  namespace: string | undefined;
  /** The watch's field and label selectors, compiled once. */
  matches: (object: unknown) => boolean;
  res: ServerResponse;
}

export function kubeStatus(code: number, reason: string, message: string, details?: Record<string, unknown>) {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    status: code < 300 ? 'Success' : 'Failure',
    message,
    reason,
    code,
    details,
  };
}

export class FakeKubeApi {
  readonly requests: RecordedRequest[] = [];
  url = '';
  private server: Server | undefined;
  private readonly store = new Map<string, Map<string, KubeObject>>();
  private readonly history: Change[] = [];
  private readonly watchers = new Set<Watcher>();
  private readonly overrides: Override[] = [];
  private rv = 1;
  /** Watches and continue tokens older than this answer 410 Gone. */
  private compactedRv = 0;
  private unavailable = false;
  /** Keep history bounded when a benchmark churns thousands of objects. */
  recordRequests = true;
  /** The deletionTimestamp a DELETE stamps on an object with finalizers; tests on a virtual clock set it. */
  now: () => string = () => new Date().toISOString();

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.handle(req.method ?? 'GET', req.url ?? '/', req.headers, Buffer.concat(chunks), res));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.dropWatches();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Answers requests itself while `fn` returns a reply; the most recent override wins. */
  override(fn: Override): void {
    this.overrides.unshift(fn);
  }

  clearOverrides(): void {
    this.overrides.length = 0;
  }

  /** Every request answers 503 and open watches drop, as when the API server is down. */
  setUnavailable(down: boolean): void {
    this.unavailable = down;
    if (down) this.dropWatches();
  }

  /** Compacts history: open watches get a 410 ERROR event and must re-list. */
  expireWatches(): void {
    this.compactedRv = this.rv;
    for (const w of this.watchers) {
      writeLine(w.res, { type: 'ERROR', object: kubeStatus(410, 'Expired', 'too old resource version') });
      w.res.end();
    }
    this.watchers.clear();
    this.history.length = 0;
  }

  dropWatches(): void {
    for (const w of this.watchers) w.res.destroy();
    this.watchers.clear();
  }

  get watchCount(): number {
    return this.watchers.size;
  }

  /** Creates or replaces an object, bumping its resourceVersion and notifying watches. */
  put<T extends object>(resource: string, object: T): T & { metadata: { resourceVersion: string } } {
    const obj = structuredClone(object) as unknown as KubeObject;
    const key = objectKey(obj.metadata.namespace, obj.metadata.name);
    const bucket = this.bucket(resource);
    const previous = bucket.get(key);
    obj.metadata.resourceVersion = String(++this.rv);
    bucket.set(key, obj);
    this.record({ rv: this.rv, resource, type: previous ? 'MODIFIED' : 'ADDED', object: obj, previous });
    return obj as unknown as T & { metadata: { resourceVersion: string } };
  }

  remove(resource: string, namespace: string | undefined, name: string): boolean {
    const bucket = this.bucket(resource);
    const key = objectKey(namespace, name);
    const previous = bucket.get(key);
    if (!previous) return false;
    bucket.delete(key);
    const object = { ...previous, metadata: { ...previous.metadata, resourceVersion: String(++this.rv) } };
    this.record({ rv: this.rv, resource, type: 'DELETED', object, previous });
    return true;
  }

  get<T = KubeObject>(resource: string, namespace: string | undefined, name: string): T | undefined {
    return this.bucket(resource).get(objectKey(namespace, name)) as T | undefined;
  }

  list<T = KubeObject>(resource: string): T[] {
    return [...this.bucket(resource).values()] as T[];
  }

  requestsTo(method: string, pathPrefix: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path.startsWith(pathPrefix));
  }

  private bucket(resource: string): Map<string, KubeObject> {
    let bucket = this.store.get(resource);
    if (!bucket) {
      bucket = new Map();
      this.store.set(resource, bucket);
    }
    return bucket;
  }

  private record(change: Change): void {
    this.history.push(change);
    if (this.history.length > 50_000) {
      // Trimmed history is compacted history: a watch from before it must get 410, not silently miss events.
      const dropped = this.history.splice(0, 25_000);
      this.compactedRv = (dropped.at(-1)?.rv ?? this.compactedRv) + 1;
    }
    for (const w of this.watchers) this.notify(w, change);
  }

  private notify(w: Watcher, change: Change): void {
    if (w.resource !== change.resource) return;
    if (w.namespace && change.object.metadata.namespace !== w.namespace) return;
    const now = change.type !== 'DELETED' && w.matches(change.object);
    const before = change.previous !== undefined && w.matches(change.previous);
    // A watch with a field or label selector sees objects entering and leaving the selection as ADDED and DELETED.
    const type = now && before ? 'MODIFIED' : now ? 'ADDED' : before ? 'DELETED' : undefined;
    if (type) writeLine(w.res, { type, object: change.object });
  }

  private handle(
    method: string,
    rawUrl: string,
    headers: IncomingHttpHeaders,
    raw: Buffer,
    res: ServerResponse,
  ): boolean {
    const url = new URL(rawUrl, 'http://fake');
    const contentType = headers['content-type'];
    let body: unknown;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = raw.toString('utf8');
      }
    }
    const resource = parseResourcePath(url.pathname);
    const request: RecordedRequest = {
      method,
      path: url.pathname,
      query: url.searchParams,
      contentType,
      headers,
      body,
      resource,
    };
    if (this.recordRequests) this.requests.push(request);
    if (this.unavailable) return reply(res, 503, kubeStatus(503, 'ServiceUnavailable', 'apiserver unavailable'));
    for (const o of this.overrides) {
      const answer = o(request);
      if (answer) return reply(res, answer.status, answer.body);
    }
    if (!resource) return reply(res, 404, kubeStatus(404, 'NotFound', `no route for ${url.pathname}`));
    try {
      return this.route(request, resource, res);
    } catch (err) {
      return reply(res, 500, kubeStatus(500, 'InternalError', err instanceof Error ? err.message : String(err)));
    }
  }

  private route(request: RecordedRequest, path: ResourcePath, res: ServerResponse): boolean {
    const { method, query } = request;
    const resource = path.resource;
    const ns = path.namespace;
    if (method === 'GET' && !path.name) {
      if (query.get('watch') === 'true' || query.get('watch') === '1') return this.watch(resource, ns, query, res);
      return reply(res, 200, this.listPage(resource, ns, query));
    }
    if (!path.name) {
      if (method === 'POST') return reply(res, 201, this.create(resource, ns, request.body as KubeObject));
      return reply(res, 405, kubeStatus(405, 'MethodNotAllowed', method));
    }
    const current = this.get(resource, ns, path.name);
    const notFound = () =>
      reply(
        res,
        404,
        kubeStatus(404, 'NotFound', `${resource} "${path.name}" not found`, { name: path.name, kind: resource }),
      );
    if (path.subresource === 'binding' && method === 'POST') {
      if (!current) return notFound();
      const spec = (current.spec ?? {}) as Record<string, unknown>;
      if (spec.nodeName) {
        return reply(
          res,
          409,
          kubeStatus(409, 'Conflict', `pod ${path.name} is already assigned to node "${spec.nodeName}"`),
        );
      }
      const target = (request.body as { target?: { name?: string } }).target?.name;
      this.put(resource, { ...current, spec: { ...spec, nodeName: target } });
      return reply(res, 201, kubeStatus(201, '', ''));
    }
    if (path.subresource === 'eviction' && method === 'POST') {
      if (!current) return notFound();
      this.remove(resource, ns, path.name);
      return reply(res, 201, kubeStatus(201, '', ''));
    }
    if (method === 'GET') return current ? reply(res, 200, current) : notFound();
    if (method === 'DELETE') {
      if (!current) return notFound();
      // As the API server: an object with finalizers is only marked (deletionTimestamp) until they are all removed.
      if (finalizersOf(current).length > 0) {
        if (current.metadata.deletionTimestamp) return reply(res, 200, current);
        const marked = { ...current, metadata: { ...current.metadata, deletionTimestamp: this.now() } };
        return reply(res, 200, this.put(resource, marked));
      }
      this.remove(resource, ns, path.name);
      return reply(res, 200, kubeStatus(200, '', ''));
    }
    if (method === 'PATCH') {
      if (!current) return notFound();
      try {
        const patched = applyPatch(current, request.contentType ?? '', request.body) as KubeObject;
        if (current.metadata.deletionTimestamp) {
          const added = finalizersOf(patched).filter((f) => !finalizersOf(current).includes(f));
          if (added.length > 0) {
            const message = `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`;
            return reply(res, 422, kubeStatus(422, 'Invalid', message));
          }
          // The last finalizer off a deleting object deletes it.
          if (finalizersOf(patched).length === 0) {
            this.remove(resource, ns, path.name);
            return reply(res, 200, patched);
          }
        }
        return reply(res, 200, this.put(resource, patched));
      } catch (err) {
        if (err instanceof PatchTestFailed) return reply(res, 422, kubeStatus(422, 'Invalid', err.message));
        return reply(res, 415, kubeStatus(415, 'UnsupportedMediaType', String(err)));
      }
    }
    return reply(res, 405, kubeStatus(405, 'MethodNotAllowed', method));
  }

  private create(resource: string, namespace: string | undefined, body: KubeObject): KubeObject {
    const meta = { ...body.metadata } as KubeObject['metadata'] & { generateName?: string };
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName}${(this.rv + 1).toString(36)}`;
    return this.put(resource, { ...body, metadata: { ...meta, namespace: namespace ?? meta.namespace } });
  }

  private listPage(resource: string, namespace: string | undefined, query: URLSearchParams) {
    const matches = selectorOf(query);
    const items = [...this.bucket(resource).entries()]
      .filter(([, o]) => !namespace || o.metadata.namespace === namespace)
      .filter(([, o]) => matches(o))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, o]) => o);
    const limit = Number(query.get('limit') ?? 0);
    const token = query.get('continue');
    const start = token ? (JSON.parse(Buffer.from(token, 'base64url').toString()) as { offset: number }).offset : 0;
    const page = limit > 0 ? items.slice(start, start + limit) : items.slice(start);
    const more = limit > 0 && start + limit < items.length;
    const next = more ? Buffer.from(JSON.stringify({ offset: start + limit })).toString('base64url') : undefined;
    return {
      kind: 'List',
      apiVersion: 'v1',
      metadata: { resourceVersion: String(this.rv), continue: next },
      items: page,
    };
  }

  private watch(resource: string, namespace: string | undefined, query: URLSearchParams, res: ServerResponse): boolean {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    const from = Number(query.get('resourceVersion') ?? this.rv);
    if (from < this.compactedRv) {
      writeLine(res, { type: 'ERROR', object: kubeStatus(410, 'Expired', `too old resource version: ${from}`) });
      res.end();
      return true;
    }
    const watcher: Watcher = { resource, namespace, matches: selectorOf(query), res };
    for (const change of this.history) if (change.rv > from) this.notify(watcher, change);
    this.watchers.add(watcher);
    res.on('close', () => this.watchers.delete(watcher));
    const timeout = Number(query.get('timeoutSeconds') ?? 0);
    if (timeout > 0) {
      const timer = setTimeout(() => {
        this.watchers.delete(watcher);
        res.end();
      }, timeout * 1000);
      res.on('close', () => clearTimeout(timer));
    }
    return true;
  }
}

function selectorOf(query: URLSearchParams): (object: unknown) => boolean {
  const fields = compileFieldSelector(query.get('fieldSelector'));
  const labels = compileLabelSelector(query.get('labelSelector'));
  return (object) => fields(object) && labels(object);
}

function finalizersOf(object: KubeObject): string[] {
  const finalizers = object.metadata.finalizers;
  return Array.isArray(finalizers) ? (finalizers as string[]) : [];
}

function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** Returns true so handlers can `return reply(...)`. */
function reply(res: ServerResponse, status: number, body: unknown): boolean {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(body === undefined ? '' : JSON.stringify(body));
  return true;
}

function writeLine(res: ServerResponse, event: unknown): void {
  if (!res.writableEnded && !res.destroyed) res.write(`${JSON.stringify(event)}\n`);
}
