// interruption: EC2 and AWS Health events from EventBridge, through the standard interruption queue. Events of
// other kinds are dropped cheaply; malformed ones fail validation and go to the DLQ at once with the reason.
import { handleInterruption } from '../../shared/controllers';
import { isIgnored, parseInterruptionEvent } from '../../shared/events';
import { readEnv } from '../_wiring/env';
import { awsPorts } from '../_wiring/launch-ports';
import type { PortsFactory } from '../_wiring/ports';
import { createObservability, type Observability } from '../middleware';
import { sqsConsumer } from '../middleware/sqs-consumer';

export const observability: Observability = createObservability({
  cluster: process.env.CLUSTER_NAME ?? 'unknown',
  service: 'interruption',
});

/** The handler with its ports (and, for tests, its observability) injected. */
export function createHandler(factory: PortsFactory, obs: Observability = observability) {
  const { logger } = obs;
  return sqsConsumer(factory, obs, parseInterruptionEvent, async (deps, event, record) => {
    if (isIgnored(event)) {
      logger.debug('event ignored', { reason: event.ignored, messageId: record.messageId });
      return;
    }
    const result = await handleInterruption(deps, event);
    logger.info('interruption handled', {
      kind: event.kind,
      eventId: event.eventId,
      terminating: result.terminating,
      ignored: result.ignored.length,
      replacements: result.replacement?.launched ?? [],
    });
    if (result.replacement?.retry) throw new Error('retryable launch failure while replacing capacity');
  });
}

export const handler = createHandler(() => awsPorts(readEnv()));
