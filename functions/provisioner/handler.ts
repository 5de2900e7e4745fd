// provisioner: the cluster FIFO queue's consumer (one message group per cluster, so passes are serialized).
// PodsPending and NodePoolChanged run a provisioning pass; the other kinds on the queue are routed the same way as
// in every control-queue function.
import { createObservability } from '../middleware';
import { controlQueueHandler, type Observability, type PortsFactory } from './control-queue';
import { awsPorts, readEnv } from './wiring';

export const { logger, metrics } = createObservability({
  cluster: process.env.CLUSTER_NAME ?? 'unknown',
  service: 'provisioner',
});

/** The handler with its ports (and, for tests, its observability) injected. */
export const createHandler = (factory: PortsFactory, observability: Observability = { logger, metrics }) =>
  controlQueueHandler(factory, observability);

export const handler = createHandler(() => awsPorts(readEnv()));
