// termination: the termination queue, a standard queue so each message can wait (DelaySeconds). A drain step runs
// here and re-queues itself while unfinished; a due disruption re-check is relayed to the cluster FIFO queue, where
// the provisioner's sweep runs. Nothing here plans or launches: the ports are instance-only, and so is the bundle.
import { handleTerminationQueueMessage } from '../../shared/controllers';
import { parseControlMessage } from '../../shared/events';
import { readEnv } from '../_wiring/env';
import { awsInstancePorts, type InstancePorts, type PortsFactory } from '../_wiring/ports';
import { createObservability, type Observability } from '../middleware';
import { sqsConsumer } from '../middleware/sqs-consumer';

export const observability: Observability = createObservability({
  cluster: process.env.CLUSTER_NAME ?? 'unknown',
  service: 'termination',
});

/** The handler with its ports (and, for tests, its observability) injected. */
export const createHandler = (factory: PortsFactory<InstancePorts>, obs: Observability = observability) =>
  sqsConsumer(factory, obs, parseControlMessage, async (deps, message, record) => {
    await handleTerminationQueueMessage(deps, message, record.messageId);
  });

export const handler = createHandler(() => awsInstancePorts(readEnv()));
