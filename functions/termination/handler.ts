// termination: one bounded step of a NodeClaim's drain per message; an unfinished drain re-queues itself with
// DelaySeconds (on the standard termination queue, since FIFO queues take no per-message delay).
import { createObservability } from '../middleware';
import type { Observability } from '../provisioner/control-queue';
import { controlQueueHandler, type PortsFactory } from '../provisioner/control-queue';
import { awsPorts, readEnv } from '../provisioner/wiring';

export const { logger, metrics } = createObservability({
  cluster: process.env.CLUSTER_NAME ?? 'unknown',
  service: 'termination',
});

/** The handler with its ports (and, for tests, its observability) injected. */
export const createHandler = (factory: PortsFactory, observability: Observability = { logger, metrics }) =>
  controlQueueHandler(factory, observability);

export const handler = createHandler(() => awsPorts(readEnv()));
