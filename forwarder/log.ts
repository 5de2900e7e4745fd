// JSON lines on stdout, one object per event, so CloudWatch Logs Insights (Container Insights / Fluent Bit) can
// query fields directly.

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

export interface Logger {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
}

export function jsonLogger(
  write: (line: string) => void = (l) => process.stdout.write(l),
  base: Record<string, unknown> = {},
): Logger {
  return {
    log(level, message, fields) {
      write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...base, ...fields })}\n`);
    },
  };
}

export const silentLogger: Logger = { log: () => {} };

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
