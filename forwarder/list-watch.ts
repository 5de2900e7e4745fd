// A lean reflector: list (paginated) then watch from the list's resourceVersion, resume the watch from the last
// seen version when the server ends it, and re-list on 410 Gone or after any failure, backing off while the API
// server is unreachable. It hands the tracker Slims only; raw objects never outlive one page or one line.
import { MANAGED_BY_KARPLESS, MANAGED_BY_LABEL } from '../shared/api/nodeclaim-object';
import { type BackoffPolicy, backoffDelay, DEFAULT_BACKOFF } from './backoff';
import { type KubeHttp, KubeHttpError } from './kube-http';
import { errorMessage, type Logger, silentLogger } from './log';
import { type Slim, slimFor, type WatchedResource } from './slim';
import type { WatchEventType } from './tracker';

export interface ResourceSource {
  resource: WatchedResource;
  /** Collection path, e.g. /api/v1/pods. */
  path: string;
  fieldSelector?: string;
  labelSelector?: string;
  /** Served by a CRD the cluster may not have: a 404 lists as empty (synced, healthy) and the list is retried after
   * `absentRetryMs` in case the CRD is applied later. */
  optional?: boolean;
}

export const WATCHED: ResourceSource[] = [
  { resource: 'pods', path: '/api/v1/pods', fieldSelector: 'spec.nodeName=,status.phase=Pending' },
  { resource: 'nodes', path: '/api/v1/nodes' },
  { resource: 'nodepools', path: '/apis/karpenter.sh/v1/nodepools' },
  { resource: 'ec2nodeclasses', path: '/apis/karpenter.k8s.aws/v1/ec2nodeclasses' },
  // A NodeOverlay changes prices or capacities: the provisioner plans again with it (docs/api.md, NodeOverlay).
  { resource: 'nodeoverlays', path: '/apis/karpenter.sh/v1alpha1/nodeoverlays', optional: true },
  // Only the NodeClaims Karpless mirrors, for their deletion marks (docs/kubernetes.md, NodeClaim objects).
  {
    resource: 'nodeclaims',
    path: '/apis/karpenter.sh/v1/nodeclaims',
    labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY_KARPLESS}`,
    optional: true,
  },
];

export interface ListWatchHandlers {
  /** `resendAll` on the first list and after any gap (410, outage): the receiver may have missed events. */
  onList(resource: WatchedResource, items: Slim[], info: { resendAll: boolean }): void;
  onEvent(resource: WatchedResource, type: WatchEventType, slim: Slim): void;
}

export interface ListWatchOptions {
  pageSize?: number;
  watchTimeoutSeconds?: number;
  backoff?: BackoffPolicy;
  log?: Logger;
  /** How long an optional resource whose CRD is missing waits before listing again. Default 5 min. */
  absentRetryMs?: number;
  /** Waits between attempts; tests replace it. */
  sleep?: (ms: number) => Promise<void>;
}

class Expired extends Error {}

type WatchLine = {
  type?: string;
  object?: { metadata?: { resourceVersion?: string }; code?: number; message?: string };
};

export class ListWatch {
  private resourceVersion: string | undefined;
  private stopped = false;
  private wake: (() => void) | undefined;
  synced = false;
  healthy = false;
  /** Epoch ms since when list/watch has been failing without a successful list; undefined while healthy. */
  failingSince: number | undefined = undefined;
  relists = 0;
  failures = 0;
  /** An optional resource whose CRD the API server does not serve (yet). */
  absent = false;

  constructor(
    private readonly http: KubeHttp,
    private readonly source: ResourceSource,
    private readonly handlers: ListWatchHandlers,
    private readonly options: ListWatchOptions = {},
  ) {}

  async run(): Promise<void> {
    const log = this.options.log ?? silentLogger;
    let resendAll = true;
    while (!this.stopped) {
      try {
        const listed = await this.list(resendAll);
        this.failures = 0;
        this.healthy = true;
        this.failingSince = undefined;
        resendAll = false;
        if (listed === 'absent') {
          await this.pause(this.options.absentRetryMs ?? 5 * 60_000);
          continue;
        }
        await this.watchUntilExpired();
      } catch (err) {
        if (this.stopped) break;
        this.healthy = false;
        this.failingSince ??= Date.now();
        // After 410 Gone the next list resends everything too: events were lost between the versions.
        resendAll = true;
        if (err instanceof Expired || (err instanceof KubeHttpError && err.status === 410)) {
          log.log('INFO', 'watch expired; re-listing', { resource: this.source.resource });
          continue;
        }
        this.failures++;
        const delay = backoffDelay(this.failures, this.options.backoff ?? DEFAULT_BACKOFF);
        log.log('WARN', 'list/watch failed; backing off', {
          resource: this.source.resource,
          error: errorMessage(err),
          attempt: this.failures,
          retryInMs: delay,
        });
        await this.pause(delay);
      }
    }
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  /** 'absent' when an optional resource's CRD is not installed: listed as empty, nothing to watch. */
  private async list(resendAll: boolean): Promise<'listed' | 'absent'> {
    const items: Slim[] = [];
    let token: string | undefined;
    let rv: string | undefined;
    do {
      let page: { items?: unknown[]; metadata?: { resourceVersion?: string; continue?: string } };
      try {
        page = await this.http.getJson(this.path({ limit: String(this.options.pageSize ?? 100), continue: token }));
      } catch (err) {
        if (!(this.source.optional && err instanceof KubeHttpError && err.status === 404)) throw err;
        if (!this.absent)
          (this.options.log ?? silentLogger).log('INFO', 'resource not served; will look again', {
            resource: this.source.resource,
          });
        this.absent = true;
        this.handlers.onList(this.source.resource, [], { resendAll });
        this.synced = true;
        return 'absent';
      }
      for (const raw of page.items ?? []) items.push(slimFor(this.source.resource, raw));
      rv = page.metadata?.resourceVersion;
      token = page.metadata?.continue || undefined;
    } while (token && !this.stopped);
    this.resourceVersion = rv;
    this.relists++;
    this.absent = false;
    this.handlers.onList(this.source.resource, items, { resendAll });
    this.synced = true;
    return 'listed';
  }

  private async watchUntilExpired(): Promise<void> {
    const timeout = this.options.watchTimeoutSeconds ?? 300;
    while (!this.stopped) {
      // Vary the timeout so many watches do not all reconnect in the same second.
      const seconds = Math.round(timeout * (0.9 + 0.2 * Math.random()));
      const started = Date.now();
      let expired = false;
      await this.http.watch(
        this.path({
          watch: 'true',
          allowWatchBookmarks: 'true',
          resourceVersion: this.resourceVersion,
          timeoutSeconds: String(seconds),
        }),
        (seconds + 30) * 1000,
        (line) => {
          const event = line as WatchLine;
          if (event.type === 'ERROR') {
            if (event.object?.code === 410) expired = true;
            else
              throw new KubeHttpError(event.object?.code ?? 500, `watch error: ${event.object?.message ?? 'unknown'}`);
            return;
          }
          const rv = event.object?.metadata?.resourceVersion;
          if (rv) this.resourceVersion = rv;
          if (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED') {
            this.handlers.onEvent(this.source.resource, event.type, slimFor(this.source.resource, event.object));
          }
        },
      );
      if (expired) throw new Expired();
      // A server (or proxy) that ends every watch at once must not turn this loop into a busy one.
      if (Date.now() - started < 1000) await this.pause(1000);
    }
  }

  private path(query: Record<string, string | undefined>): string {
    const params = new URLSearchParams();
    if (this.source.fieldSelector) params.set('fieldSelector', this.source.fieldSelector);
    if (this.source.labelSelector) params.set('labelSelector', this.source.labelSelector);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, v);
    return `${this.source.path}?${params.toString()}`;
  }

  private pause(ms: number): Promise<void> {
    if (this.options.sleep) return this.options.sleep(ms);
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
