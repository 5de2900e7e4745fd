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

/** The keys of every Powertools log line. An extra field of the same name is dropped (message, level, service,
 * timestamp, sampling_rate) or overwrites the Lambda context (the rest), so it is logged as `field_<key>` instead. */
const POWERTOOLS_KEYS = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'sampling_rate',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
  'xray_trace_id',
  'tenant_id',
  'cluster',
]);

/** The fields with a key of Powertools' own renamed, so none is lost. */
export function keptFields(fields: Record<string, unknown>): Record<string, unknown> {
  if (!Object.keys(fields).some((k) => POWERTOOLS_KEYS.has(k))) return fields;
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [POWERTOOLS_KEYS.has(k) ? `field_${k}` : k, v]));
}

export function logFor(logger: LoggerLike): ControlPlaneLog {
  return {
    debug: (m, f) => (f ? logger.debug(m, keptFields(f)) : logger.debug(m)),
    info: (m, f) => (f ? logger.info(m, keptFields(f)) : logger.info(m)),
    warn: (m, f) => (f ? logger.warn(m, keptFields(f)) : logger.warn(m)),
    error: (m, f) => (f ? logger.error(m, keptFields(f)) : logger.error(m)),
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
