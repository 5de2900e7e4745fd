// SQS adapters shared by the functions.
export { DEAD_LETTER_ATTRIBUTES, sqsDeadLetter } from './dead-letter';
