// termination: the termination queue, a standard queue so each message can wait (DelaySeconds). A drain step runs
// here and re-queues itself while unfinished; a due disruption re-check is relayed to the cluster FIFO queue, where
// the provisioner's sweep runs. Nothing here plans or launches: the ports are instance-only, and so is the bundle.
import { handleTerminationQueueMessage } from '../../shared/controllers';
import { createObservability } from '../middleware';
import { controlMessageConsumer, type Observability, type PortsFactory } from '../provisioner/control-queue';
import { awsInstancePorts, type InstancePorts, readEnv } from '../provisioner/wiring';

export const { logger, metrics } = createObservability({
  cluster: process.env.CLUSTER_NAME ?? 'unknown',
  service: 'termination',
});

/** The handler with its ports (and, for tests, its observability) injected. */
export const createHandler = (
  factory: PortsFactory<InstancePorts>,
  observability: Observability = { logger, metrics },
) =>
  controlMessageConsumer(factory, observability, async (deps, message, record) => {
    await handleTerminationQueueMessage(deps, message, record.messageId);
  });

export const handler = createHandler(() => awsInstancePorts(readEnv()));
