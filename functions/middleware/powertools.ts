// Powertools wiring shared by every handler: one Logger and one Metrics per container, the Lambda context injected
// into each log line, EMF metrics flushed after every invocation (also when it fails), and a ColdStart metric.
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { MiddlewareObj } from '@middy/core';
import { CLUSTER_DIMENSION, METRIC_NAMESPACE } from '../../shared/metrics';

export interface ObservabilityOptions {
  cluster: string;
  /** The function's short name (provisioner, lifecycle, ...): the `service` key and dimension. */
  service: string;
  logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
}

/** A function's Logger and Metrics, one of each per container; handlers export theirs as `observability`. */
export interface Observability {
  logger: Logger;
  metrics: Metrics;
}

export function createObservability(options: ObservabilityOptions): Observability {
  const logger = new Logger({
    serviceName: options.service,
    persistentKeys: { cluster: options.cluster },
    ...(options.logLevel && { logLevel: options.logLevel }),
  });
  const metrics = new Metrics({
    namespace: METRIC_NAMESPACE,
    serviceName: options.service,
    defaultDimensions: { [CLUSTER_DIMENSION]: options.cluster },
  });
  return { logger, metrics };
}

/** Middleware for `middy(handler).use(powertools(logger, metrics))`. */
export function powertools(logger: Logger, metrics: Metrics): MiddlewareObj[] {
  return [
    injectLambdaContext(logger, { resetKeys: true }) as MiddlewareObj,
    logMetrics(metrics, { captureColdStartMetric: true, throwOnEmptyMetrics: false }) as MiddlewareObj,
  ];
}
