// Shared by the function tests: the simulator test bed as a handler's ports, and captured Powertools output.
import { vi } from 'vitest';
import type { ControlPlanePorts } from '../functions/_wiring/ports';
import { createObservability, type Observability } from '../functions/middleware';
import { createTestbed, type Testbed, type TestbedOptions } from './bed';

export function portsOf(t: Testbed): ControlPlanePorts {
  const { log: _log, metric: _metric, ...ports } = t.deps;
  return ports;
}

/** A test bed for cluster "demo" (the fixtures' cluster) and observability that names it. */
export function functionBed(
  service: string,
  options: TestbedOptions = {},
): { t: Testbed; observability: Observability } {
  const t = createTestbed({ cluster: 'demo', ...options });
  return { t, observability: createObservability({ cluster: 'demo', service }) };
}

/** Captures stdout and stderr (Powertools writes JSON lines to both); call in beforeEach. */
export function captureOutput(): () => Record<string, unknown>[] {
  const chunks: string[] = [];
  const capture = (chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  return () =>
    chunks
      .join('')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
}
