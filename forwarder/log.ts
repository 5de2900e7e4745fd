// JSON lines on stdout, one object per event, so CloudWatch Logs Insights (Container Insights / Fluent Bit) can
// query fields directly.

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

export interface Logger {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
}

/** The record's own keys. A field of the same name would overwrite them (a `message` field would hide the event's
 * message), so it is written as `field_<key>` instead, as the functions' logger does (`keptFields` in
 * functions/_wiring/observability.ts). */
const RECORD_KEYS = new Set(['time', 'level', 'message']);

function keptFields(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [RECORD_KEYS.has(k) ? `field_${k}` : k, v]));
}

export function jsonLogger(
  write: (line: string) => void = (l) => process.stdout.write(l),
  base: Record<string, unknown> = {},
): Logger {
  return {
    log(level, message, fields) {
      const extra = keptFields({ ...base, ...fields });
      write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...extra })}\n`);
    },
  };
}

export const silentLogger: Logger = { log: () => {} };

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
