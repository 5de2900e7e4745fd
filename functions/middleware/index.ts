export { coldStartPorts, memoizeAsync, type WithPorts } from './cold-start-ports';
export { createObservability, type Observability, type ObservabilityOptions, powertools } from './powertools';
export {
  type BatchLog,
  type CountFn,
  type DeadLetter,
  type RecordHandler,
  type RecordInfo,
  type SqsPartialBatchOptions,
  sqsPartialBatch,
} from './sqs-partial-batch';
