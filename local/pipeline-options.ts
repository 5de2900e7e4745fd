// What a local pipeline is built from: the world to load, its timing, its store, and where it reports.
import type { BatchTiming } from '../forwarder/batch-window';
import type { KubeHttp } from '../forwarder/kube-http';
import type { ControlPlaneConfig } from '../shared/controllers';
import type { LogRecord } from './log-capture';
import type { NodeClaimObjectApi } from './nodeclaim-object-api';
import type { TimelineEntry } from './pipeline-timeline';

export interface LocalPipelineOptions {
  cluster?: string;
  seed?: number;
  /** Parsed objects to load into the simulated cluster (pods, NodePools, EC2NodeClasses, DaemonSets, PDBs, ...). */
  objects: Iterable<{ kind?: string }>;
  start?: string;
  registrationDelayMs?: number;
  readyDelayMs?: number;
  batchTiming?: BatchTiming;
  sweepEveryMs?: number;
  gcEveryMs?: number;
  config?: Partial<ControlPlaneConfig>;
  /** dynalite (the default) or the in-memory store. */
  store?: 'dynalite' | 'memory';
  logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** Every Powertools log line (EMF metric blobs excluded) the handlers print. */
  onLog?: (record: LogRecord) => void;
  onTimeline?: (entry: TimelineEntry) => void;
  /** Where the handlers mirror NodeClaim objects (docs/kubernetes.md, NodeClaim objects): the simulated cluster by
   * default; test/e2e passes the real Kubernetes adapter on the fake API server, so the objects go through HTTP. */
  nodeClaimObjects?: NodeClaimObjectApi;
  /** The API server holding `nodeClaimObjects`: the forwarder's real NodeClaim list-watch (forwarder/list-watch.ts)
   * runs against it and feeds the batching, so a `kubectl delete nodeclaim` there reaches the provisioner as a
   * NodeClaimDeleted. Its events arrive in real time; `forwarder.waiting` shows when one is in. */
  nodeClaimWatch?: KubeHttp;
  /** Every EMF metrics flush the handlers print (measurements: bench/after-solve-reserve.ts). */
  onMetrics?: (record: LogRecord) => void;
}
