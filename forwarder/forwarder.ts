// Wires the forwarder: one ListWatch per watched resource feeding the ChangeTracker, the Flusher sending batches
// to the sink, and the health state the probes read.
import type { BackoffPolicy } from './backoff';
import type { BatchTiming } from './batch-window';
import { Flusher, type MessageSink } from './flusher';
import type { HealthState } from './health';
import type { KubeHttp } from './kube-http';
import { ListWatch, type ResourceSource, WATCHED } from './list-watch';
import { type Logger, silentLogger } from './log';
import { ChangeTracker } from './tracker';

export interface ForwarderOptions {
  cluster: string;
  http: KubeHttp;
  sink: MessageSink;
  log?: Logger;
  timing?: BatchTiming;
  backoff?: BackoffPolicy;
  sendBackoff?: BackoffPolicy;
  pageSize?: number;
  watchTimeoutSeconds?: number;
  /** How long a watch of a CRD the cluster lacks (NodeClaim, NodeOverlay) waits before looking again. */
  absentRetryMs?: number;
  sources?: ResourceSource[];
  /** Not ready once SQS has failed this many times in a row. */
  unreadyAfterSendFailures?: number;
  /** Not live (kubelet restarts the pod) when a watch has failed continuously this long. Default 15 min. */
  stalledAfterMs?: number;
}

export class Forwarder implements HealthState {
  readonly tracker = new ChangeTracker();
  readonly flusher: Flusher;
  readonly watches: ListWatch[];
  private running: Promise<void>[] = [];

  constructor(private readonly options: ForwarderOptions) {
    const log = options.log ?? silentLogger;
    this.flusher = new Flusher(this.tracker, options.sink, {
      cluster: options.cluster,
      timing: options.timing,
      backoff: options.sendBackoff,
      log,
    });
    const handlers = {
      onList: (
        resource: Parameters<ChangeTracker['onRelist']>[0],
        items: Parameters<ChangeTracker['onRelist']>[1],
        info: { resendAll: boolean },
      ) => {
        if (this.tracker.onRelist(resource, items, info)) this.flusher.notify();
        log.log('INFO', 'listed', {
          resource,
          items: items.length,
          tracked: this.tracker.knownCount(resource),
          resendAll: info.resendAll,
        });
      },
      onEvent: (...args: Parameters<ChangeTracker['onEvent']>) => {
        if (this.tracker.onEvent(...args)) this.flusher.notify();
      },
    };
    this.watches = (options.sources ?? WATCHED).map(
      (source) =>
        new ListWatch(options.http, source, handlers, {
          pageSize: options.pageSize,
          watchTimeoutSeconds: options.watchTimeoutSeconds,
          absentRetryMs: options.absentRetryMs,
          backoff: options.backoff,
          log,
        }),
    );
  }

  start(): void {
    this.running = this.watches.map((w) => w.run());
  }

  /** Stops watching and sends what is waiting. */
  async stop(): Promise<void> {
    for (const w of this.watches) w.stop();
    this.options.http.close();
    await Promise.allSettled(this.running);
    this.flusher.stop();
    await this.flusher.flushNow().catch(() => {});
  }

  /** A fresh process (new connections, re-read credentials) is the remedy for a watch failing for a long time. */
  live(now: number = Date.now()): boolean {
    const limit = this.options.stalledAfterMs ?? 15 * 60_000;
    return this.watches.every((w) => w.failingSince === undefined || now - w.failingSince < limit);
  }

  ready(): { ready: boolean; detail: Record<string, unknown> } {
    const watches = Object.fromEntries(
      this.watches.map((w, i) => [
        (this.options.sources ?? WATCHED)[i]?.resource,
        { synced: w.synced, healthy: w.healthy },
      ]),
    );
    const sendFailures = this.flusher.consecutiveFailures;
    const ready =
      this.watches.every((w) => w.synced && w.healthy) && sendFailures < (this.options.unreadyAfterSendFailures ?? 5);
    return {
      ready,
      detail: { watches, sendFailures, pendingPods: this.tracker.knownCount('pods'), waiting: this.tracker.outboxSize },
    };
  }
}
