// The SQS consumers of control messages (the cluster and termination queues): each record is validated, routed, and
// reported as a partial batch failure when it throws, so SQS redelivers it while the rest of the batch succeeds. A
// poison message goes to the DLQ port of the function's ports at once.
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type DispatchOptions, handleControlMessage } from '../../shared/controllers';
import { parseControlMessage } from '../../shared/events';
import type { ControlMessage } from '../../shared/messages';
import {
  type CountFn,
  coldStartPorts,
  powertools,
  type RecordHandler,
  sqsPartialBatch,
  type WithPorts,
} from '../middleware';
import { type ControlPlanePorts, type DepsOf, depsFor, type InstancePorts, logFor } from './wiring';

export type PortsFactory<P extends InstancePorts = ControlPlanePorts> = (context: Context) => Promise<P> | P;

export interface Observability {
  logger: Logger;
  metrics: Metrics;
}

export interface ControlQueueOptions extends DispatchOptions, Observability {}

/** One validated message, routed with the function's deps. Throwing fails the record; SQS redelivers it. */
export type ControlRoute<P extends InstancePorts> = (
  deps: DepsOf<P>,
  message: ControlMessage,
  record: SQSRecord,
) => Promise<void>;

/** The cluster queue's consumer: every message kind, routed by the dispatcher. */
export function controlQueueHandler(factory: PortsFactory, options: ControlQueueOptions) {
  return controlMessageConsumer(factory, options, async (deps, message) => {
    const outcome = await handleControlMessage(deps, message, options);
    // A launch that hit a retryable error stays Pending; redelivery of this message finishes it.
    if (outcome.kind === 'provision' && outcome.result.retry) {
      throw new Error(`retryable launch failure while handling ${message.kind}`);
    }
  });
}

export function controlMessageConsumer<P extends InstancePorts>(
  factory: PortsFactory<P>,
  { logger, metrics }: Observability,
  route: ControlRoute<P>,
) {
  const handle: RecordHandler<ControlMessage> = async (message, info) =>
    route(depsFor((info.context as WithPorts<P>).ports, logger, metrics), message, info.record);
  const log = logFor(logger);
  const count: CountFn = (name, value) => metrics.addMetric(name, 'Count', value);
  return middy<SQSEvent, SQSBatchResponse>()
    .use(powertools(logger, metrics))
    .use(coldStartPorts(factory))
    .handler((event, context) => {
      const { deadLetter } = (context as WithPorts<P>).ports;
      const batch = sqsPartialBatch(handle, {
        parse: parseControlMessage,
        log,
        count,
        ...(deadLetter && { deadLetter }),
      });
      return batch(event, context);
    });
}
