// gc: invoked by EventBridge Scheduler with a GcTick. Terminates orphan instances, ends claims whose instance is
// gone, asks the cloud adapter to delete stale launch templates, and runs the lifecycle timers (launch and
// registration timeouts) so a quiet cluster still gets them. Nothing here launches: the ports are instance-only.
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { collectGarbage, type GcResult, type LifecycleResult, reconcileNodes } from '../../shared/controllers';
import { validateGcTick } from '../../shared/events';
import { readEnv } from '../_wiring/env';
import { depsFor } from '../_wiring/observability';
import { awsInstancePorts, type InstancePorts, type PortsFactory } from '../_wiring/ports';
import { coldStartPorts, createObservability, type Observability, powertools, type WithPorts } from '../middleware';

export const observability: Observability = createObservability({
  cluster: process.env.CLUSTER_NAME ?? 'unknown',
  service: 'gc',
});

export interface GcOutput {
  gc: GcResult;
  lifecycle: LifecycleResult;
}

/** The handler with its ports (and, for tests, its observability) injected. */
export function createHandler(
  factory: PortsFactory<InstancePorts>,
  { logger, metrics }: Observability = observability,
) {
  return middy<unknown, GcOutput, Error, Context>()
    .use(powertools(logger, metrics))
    .use(coldStartPorts(factory))
    .handler(async (event, context) => {
      const tick = validateGcTick(event);
      const ports = (context as WithPorts<InstancePorts>).ports;
      if (tick.cluster !== ports.cluster) {
        throw new Error(`gc tick for cluster ${tick.cluster} reached the function of cluster ${ports.cluster}`);
      }
      const deps = depsFor(ports, logger, metrics);
      const gc = await collectGarbage(deps);
      const lifecycle = await reconcileNodes(deps);
      logger.info('gc pass', {
        terminatedInstances: gc.terminatedInstances,
        failedClaims: gc.failedClaims,
        timedOut: lifecycle.timedOut,
      });
      return { gc, lifecycle };
    });
}

export const handler = createHandler(() => awsInstancePorts(readEnv()));
