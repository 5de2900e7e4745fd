// How `karpless dev` prints one Powertools log record: level, function and message, then every field the code
// logged (key=value), so a failure's reason shows next to its message. The Lambda context Powertools adds to each
// line (function name, cold start, trace id, ...) and the cluster, the same on every line, are left out.
import type { LogRecord } from '../../local';

const CONTEXT_KEYS = new Set(['timestamp', 'cluster', 'xray_trace_id', 'sampling_rate', 'cold_start', 'tenant_id']);

export function formatLog(r: LogRecord): string {
  const { level, service, message, ...rest } = r;
  const fields = Object.entries(rest)
    .filter(([k, v]) => v !== undefined && !CONTEXT_KEYS.has(k) && !k.startsWith('function_'))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `    ${String(level).padEnd(5)} [${String(service)}] ${String(message)}${fields ? ` ${fields}` : ''}`;
}
