// The forwarder's pure core, for the local pipeline and tests: feed watch events to a ChangeTracker, time batches
// with a BatchWindow, and turn the outbox into SQS messages. The process itself is main.ts.
export { type BatchTiming, BatchWindow, DEFAULT_BATCH_TIMING } from './batch-window';
export { Flusher, type MessageSink } from './flusher';
export { buildMessages, deduplicationId, type OutgoingMessage } from './messages';
export { type Slim, slimFor, type WatchedResource } from './slim';
export { ChangeTracker, type Outbox, type WatchEventType } from './tracker';
