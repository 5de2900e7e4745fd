// lifecycle: NodeChanged hints from the cluster queue. A new node is matched to its claim, registered, initialized
// and its nominated pods bound; stuck claims time out. Any other kind that reaches it is routed as everywhere else.

import { createObservability } from '../middleware';
import type { Observability } from '../provisioner/control-queue';
import { controlQueueHandler, type PortsFactory } from '../provisioner/control-queue';
import { awsPorts } from '../provisioner/launch-ports';
import { readEnv } from '../provisioner/wiring';

export const { logger, metrics } = createObservability({
  cluster: process.env.CLUSTER_NAME ?? 'unknown',
  service: 'lifecycle',
});

/** The handler with its ports (and, for tests, its observability) injected. */
export const createHandler = (factory: PortsFactory, observability: Observability = { logger, metrics }) =>
  controlQueueHandler(factory, observability);

export const handler = createHandler(() => awsPorts(readEnv()));
