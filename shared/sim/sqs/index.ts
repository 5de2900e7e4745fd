// In-memory SQS for the local pipeline and tests: queues, the WorkQueue port on them, and the event source mapping.

export { memoryDeadLetter } from './dead-letter';
export {
  DEDUPLICATION_WINDOW_MS,
  MemoryQueue,
  type MemoryQueueOptions,
  type ReceivedMessage,
  type SendInput,
  type SendOutput,
  type StoredMessage,
} from './memory-queue';
export { type PollerOptions, type PollResult, QueuePoller, type SqsHandler, toRecord } from './poller';
export { MemoryWorkQueue } from './work-queue';
