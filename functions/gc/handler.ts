// gc: invoked by EventBridge Scheduler with a GcTick. Terminates orphan instances, ends claims whose instance is
// gone or whose NodePool was deleted, asks the cloud adapter to delete stale launch templates, and runs the lifecycle timers (launch and
// registration timeouts) so a quiet cluster still gets them, and demotes `reserved` nodes whose instance has left its
// capacity reservation to `on-demand` (docs/aws.md, Capacity reservations). Nothing here launches: the ports are instance-only.
// A RefreshPrices tick (every 12 hours, as Karpenter's pricing controller) stores fresh on-demand and spot prices
// instead, which the planning functions read (docs/deploy.md, Prices).
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { refreshPrices } from '../../shared/aws/pricing/refresh';
import {
  type CapacityTypeSyncResult,
  collectGarbage,
  type GcResult,
  type LifecycleResult,
  reconcileNodes,
  syncReservedCapacityTypes,
} from '../../shared/controllers';
import { validateGcTick } from '../../shared/events';
import { readEnv } from '../_wiring/env';
import { depsFor } from '../_wiring/observability';
import { awsGcPorts, type GcPorts, type PortsFactory } from '../_wiring/ports';
import { coldStartPorts, createObservability, type Observability, powertools, type WithPorts } from '../middleware';

export const observability: Observability = createObservability({
  cluster: process.env.CLUSTER_NAME ?? 'unknown',
  service: 'gc',
});

export interface GcOutput {
  gc: GcResult;
  lifecycle: LifecycleResult;
  capacityTypes: CapacityTypeSyncResult;
}

/** A RefreshPrices tick's result: when the stored table was refreshed, or undefined when the refresh failed (logged
 * and counted; the last stored prices stay in use). */
export interface PriceRefreshOutput {
  pricesRefreshedAt: string | undefined;
}

/** The handler with its ports (and, for tests, its observability) injected. */
export function createHandler(factory: PortsFactory<GcPorts>, { logger, metrics }: Observability = observability) {
  return middy<unknown, GcOutput | PriceRefreshOutput, Error, Context>()
    .use(powertools(logger, metrics))
    .use(coldStartPorts(factory))
    .handler(async (event, context) => {
      const tick = validateGcTick(event);
      const ports = (context as WithPorts<GcPorts>).ports;
      if (tick.cluster !== ports.cluster) {
        throw new Error(`gc tick for cluster ${tick.cluster} reached the function of cluster ${ports.cluster}`);
      }
      const deps = depsFor(ports, logger, metrics);
      if (tick.kind === 'RefreshPrices') {
        if (!ports.prices) throw new Error('a RefreshPrices tick reached a gc function wired without price ports');
        const table = await refreshPrices({
          ...ports.prices,
          now: () => deps.clock.now(),
          log: (level, message, detail) => deps.log[level](message, detail),
          metric: (name, value) => deps.metric(name, value, 'Count'),
        });
        return { pricesRefreshedAt: table?.refreshedAt };
      }
      const gc = await collectGarbage(deps);
      const lifecycle = await reconcileNodes(deps);
      const capacityTypes = await syncReservedCapacityTypes(deps);
      logger.info('gc pass', {
        terminatedInstances: gc.terminatedInstances,
        failedClaims: gc.failedClaims,
        nodePoolDeleted: gc.nodePoolDeleted,
        timedOut: lifecycle.timedOut,
        demotedToOnDemand: capacityTypes.demoted,
      });
      return { gc, lifecycle, capacityTypes };
    });
}

export const handler = createHandler(() => awsGcPorts(readEnv()));
