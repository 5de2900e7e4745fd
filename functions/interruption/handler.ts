// interruption: EC2 and AWS Health events from EventBridge, through the standard interruption queue. Events of
// other kinds are dropped cheaply; malformed ones fail validation and go to the DLQ at once with the reason.
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { handleInterruption } from '../../shared/controllers';
import { type IgnoredEvent, isIgnored, parseInterruptionEvent } from '../../shared/events';
import type { InterruptionSignal } from '../../shared/messages';
import {
  type CountFn,
  coldStartPorts,
  createObservability,
  powertools,
  type RecordHandler,
  sqsPartialBatch,
  type WithPorts,
} from '../middleware';
import type { Observability, PortsFactory } from '../provisioner/control-queue';
import { awsPorts } from '../provisioner/launch-ports';
import { type ControlPlanePorts, depsFor, logFor, readEnv } from '../provisioner/wiring';

export const observability: Observability = createObservability({
  cluster: process.env.CLUSTER_NAME ?? 'unknown',
  service: 'interruption',
});

/** The handler with its ports (and, for tests, its observability) injected. */
export function createHandler(factory: PortsFactory, { logger, metrics }: Observability = observability) {
  const handle: RecordHandler<InterruptionSignal | IgnoredEvent> = async (event, info) => {
    if (isIgnored(event)) {
      logger.debug('event ignored', { reason: event.ignored, messageId: info.record.messageId });
      return;
    }
    const deps = depsFor((info.context as WithPorts<ControlPlanePorts>).ports, logger, metrics);
    const result = await handleInterruption(deps, event);
    logger.info('interruption handled', {
      kind: event.kind,
      eventId: event.eventId,
      terminating: result.terminating,
      ignored: result.ignored.length,
      replacements: result.replacement?.launched ?? [],
    });
    if (result.replacement?.retry) throw new Error('retryable launch failure while replacing capacity');
  };
  const log = logFor(logger);
  const count: CountFn = (name, value) => metrics.addMetric(name, 'Count', value);
  return middy<SQSEvent, SQSBatchResponse, Error, Context>()
    .use(powertools(logger, metrics))
    .use(coldStartPorts(factory))
    .handler((event, context) => {
      const { deadLetter } = (context as WithPorts<ControlPlanePorts>).ports;
      const batch = sqsPartialBatch(handle, {
        parse: parseInterruptionEvent,
        log,
        count,
        ...(deadLetter && { deadLetter }),
      });
      return batch(event, context);
    });
}

export const handler = createHandler(() => awsPorts(readEnv()));
