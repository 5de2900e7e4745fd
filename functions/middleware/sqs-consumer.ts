// The one SQS consumer every queue handler is: Powertools, the container's ports built once, and a partial batch in
// which each record is validated, routed with the function's deps, and reported for redelivery when it throws, so
// SQS redelivers it while the rest of the batch succeeds. A poison message goes to the DLQ port of the function's
// ports at once (sqs-partial-batch.ts).
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type DepsOf, depsFor, logFor } from '../_wiring/observability';
import type { InstancePorts, PortsFactory } from '../_wiring/ports';
import { coldStartPorts, type WithPorts } from './cold-start-ports';
import { type Observability, powertools } from './powertools';
import { type CountFn, type ParseContext, type RecordHandler, sqsPartialBatch } from './sqs-partial-batch';

/** One validated message, routed with the function's deps (and the invocation's context, for its remaining time).
 * Throwing fails the record; SQS redelivers it. */
export type SqsRoute<T, P extends InstancePorts> = (
  deps: DepsOf<P>,
  message: T,
  record: SQSRecord,
  context: Context,
) => Promise<void>;

/** Validates a record's body, and may check its sender against the function's ports (shared/events/trust.ts). */
export type SqsParse<T, P extends InstancePorts> = (body: string, options: ParseContext & { ports: P }) => T;

export function sqsConsumer<T, P extends InstancePorts>(
  factory: PortsFactory<P>,
  { logger, metrics }: Observability,
  parse: SqsParse<T, P>,
  route: SqsRoute<T, P>,
) {
  const handle: RecordHandler<T> = async (message, info) =>
    route(depsFor((info.context as WithPorts<P>).ports, logger, metrics), message, info.record, info.context);
  const log = logFor(logger);
  const count: CountFn = (name, value) => metrics.addMetric(name, 'Count', value);
  return middy<SQSEvent, SQSBatchResponse, Error, Context>()
    .use(powertools(logger, metrics))
    .use(coldStartPorts(factory))
    .handler((event, context) => {
      const { ports } = context as WithPorts<P>;
      const { deadLetter } = ports;
      const batch = sqsPartialBatch(handle, {
        parse: (body, options) => parse(body, { ...options, ports }),
        log,
        count,
        ...(deadLetter && { deadLetter }),
      });
      return batch(event, context);
    });
}
