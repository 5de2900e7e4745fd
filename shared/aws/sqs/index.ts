// SQS adapters shared by the functions.
export { DEAD_LETTER_ATTRIBUTES, sqsDeadLetter } from './dead-letter';
export { type PollOutcome, type SqsBatchHandler, SqsEventSource } from './event-source';
