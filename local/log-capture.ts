// Powertools writes JSON lines (logs and EMF metrics) straight to process.stdout and stderr. While the local
// pipeline runs, those lines are taken off the streams and handed to a callback, so `karpless dev` and `invoke` can
// print them through the CLI's output and tests stay quiet; every other write passes through untouched.
export type LogRecord = Record<string, unknown>;

/** Powertools' warning for an invocation that emitted no metric: noise in a local run. */
const POWERTOOLS_EMPTY_METRICS = 'No application metrics to publish';

export function captureJsonLines(onRecord: (record: LogRecord) => void): () => void {
  const streams = [process.stdout, process.stderr] as const;
  const originals = streams.map((s) => s.write);
  streams.forEach((stream, i) => {
    const original = originals[i] as typeof stream.write;
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      const passthrough: string[] = [];
      for (const line of text.split('\n')) {
        if (line.startsWith('{')) {
          try {
            onRecord(JSON.parse(line) as LogRecord);
            continue;
          } catch {
            // not JSON after all
          }
        }
        if (line.length > 0 && !line.startsWith(POWERTOOLS_EMPTY_METRICS)) passthrough.push(line);
      }
      if (passthrough.length === 0) return true;
      return (original as (c: string, ...r: unknown[]) => boolean).call(stream, `${passthrough.join('\n')}\n`, ...rest);
    }) as typeof stream.write;
  });
  return () => {
    streams.forEach((stream, i) => {
      stream.write = originals[i] as typeof stream.write;
    });
  };
}

/** An EMF blob (a metrics flush), as opposed to a log line. */
export function isMetricsRecord(record: LogRecord): boolean {
  return typeof record._aws === 'object' && record._aws !== null;
}
