// The SQS consumer shared by the functions on the cluster and termination queues: each record is validated, routed
// by the dispatcher, and reported as a partial batch failure when it throws, so SQS redelivers it while the rest of
// the batch succeeds. A poison message goes to the DLQ port of the function's ports at once.
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
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
import { type ControlPlanePorts, depsFor, logFor } from './wiring';

export type PortsFactory = (context: Context) => Promise<ControlPlanePorts> | ControlPlanePorts;

export interface Observability {
  logger: Logger;
  metrics: Metrics;
}

export interface ControlQueueOptions extends DispatchOptions, Observability {}

export function controlQueueHandler(factory: PortsFactory, options: ControlQueueOptions) {
  const { logger, metrics } = options;
  const handle: RecordHandler<ControlMessage> = async (message, info) => {
    const deps = depsFor((info.context as WithPorts<ControlPlanePorts>).ports, logger, metrics);
    const outcome = await handleControlMessage(deps, message, options);
    // A launch that hit a retryable error stays Pending; redelivery of this message finishes it.
    if (outcome.kind === 'provision' && outcome.result.retry) {
      throw new Error(`retryable launch failure while handling ${message.kind}`);
    }
  };
  const log = logFor(logger);
  const count: CountFn = (name, value) => metrics.addMetric(name, 'Count', value);
  return middy<SQSEvent, SQSBatchResponse>()
    .use(powertools(logger, metrics))
    .use(coldStartPorts(factory))
    .handler((event, context) => {
      const { deadLetter } = (context as WithPorts<ControlPlanePorts>).ports;
      const batch = sqsPartialBatch(handle, {
        parse: parseControlMessage,
        log,
        count,
        ...(deadLetter && { deadLetter }),
      });
      return batch(event, context);
    });
}
