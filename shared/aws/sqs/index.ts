// SQS adapters shared by the functions: the WorkQueue port and the dead-letter send for poison records.
export { DEAD_LETTER_ATTRIBUTES, sqsDeadLetter } from './dead-letter';
export { type PollOutcome, type SqsBatchHandler, SqsEventSource } from './event-source';
export { SqsWorkQueue } from './work-queue';
