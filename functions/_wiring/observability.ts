// The adapters from a function's Powertools Logger and Metrics to the use-cases' log and metric callbacks, and the
// use-cases' deps: the function's ports with both.
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { ControlPlaneLog, InstanceDeps, MetricFn } from '../../shared/controllers';
import type { InstancePorts } from './ports';

interface LoggerLike {
  debug(message: string, ...extra: Record<string, unknown>[]): void;
  info(message: string, ...extra: Record<string, unknown>[]): void;
  warn(message: string, ...extra: Record<string, unknown>[]): void;
  error(message: string, ...extra: Record<string, unknown>[]): void;
}

export function logFor(logger: LoggerLike): ControlPlaneLog {
  return {
    debug: (m, f) => (f ? logger.debug(m, f) : logger.debug(m)),
    info: (m, f) => (f ? logger.info(m, f) : logger.info(m)),
    warn: (m, f) => (f ? logger.warn(m, f) : logger.warn(m)),
    error: (m, f) => (f ? logger.error(m, f) : logger.error(m)),
  };
}

type PowertoolsUnit = (typeof MetricUnit)[keyof typeof MetricUnit];

const UNITS: Record<string, PowertoolsUnit> = {
  Count: MetricUnit.Count,
  Milliseconds: MetricUnit.Milliseconds,
  Seconds: MetricUnit.Seconds,
  None: MetricUnit.NoUnit,
};

/** Metrics without extra dimensions join the invocation's EMF blob; ones with dimensions go out as single metrics. */
export function metricFor(metrics: Metrics): MetricFn {
  return (name, value, unit = 'Count', dimensions) => {
    const u = UNITS[unit] ?? MetricUnit.NoUnit;
    if (!dimensions || Object.keys(dimensions).length === 0) {
      metrics.addMetric(name, u, value);
      return;
    }
    const single = metrics.singleMetric();
    for (const [k, v] of Object.entries(dimensions)) single.addDimension(k, v);
    single.addMetric(name, u, value);
  };
}

/** The use-cases' deps: the function's ports with its logger and metrics. */
export type DepsOf<P extends InstancePorts> = P & Pick<InstanceDeps, 'log' | 'metric'>;

export function depsFor<P extends InstancePorts>(ports: P, logger: LoggerLike, metrics: Metrics): DepsOf<P> {
  return { ...ports, log: logFor(logger), metric: metricFor(metrics) };
}
