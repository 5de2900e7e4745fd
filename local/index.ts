// The local pipeline: real handlers, simulated cluster and cloud, dynalite, in-memory SQS, real forwarder batching.
export { auditPipeline, type PipelineAudit } from './audit';
export { ForwarderFeed, type ForwarderFeedOptions } from './forwarder-feed';
export { type CreateCall, InstrumentedCloud, SimulatedCrash } from './instrumented-cloud';
export {
  INVOKABLE_FUNCTIONS,
  type Invocation,
  type InvokableFunction,
  LocalPipeline,
  type LocalPipelineOptions,
  MAX_RECEIVE,
  type PipelineFunction,
  type TimelineEntry,
  VISIBILITY_SECONDS,
} from './local-pipeline';
export { captureJsonLines, isMetricsRecord, type LogRecord } from './log-capture';
export { loadPipelineObjects, type PipelineObjects } from './manifests';
export { ObservedStore } from './observed-store';
