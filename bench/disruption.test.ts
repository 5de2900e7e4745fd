import { describe, expect, it } from 'vitest';
import { runDisruptionBench } from './disruption';

describe('runDisruptionBench', () => {
  it('times one sweep and reports what it decided', async () => {
    const r = await runDisruptionBench(60, { budget: '100%' });
    expect(r.nodes).toBe(60);
    expect(r.pods).toBeGreaterThan(500);
    expect(r.ms).toBeGreaterThan(0);
    expect(r.removed).toBeGreaterThan(0);
    expect(r.savingPerHour).toBeGreaterThan(0);
    expect(r.savingPerHour).toBeLessThan(r.costPerHour);
    expect(r.lowerBoundPerHour).toBeLessThan(r.costPerHour);
  });

  it('decides a 2,000-node sweep within 5 s of CPU, on the slowest shape', { timeout: 60_000 }, async () => {
    const r = await runDisruptionBench(2000, { budget: '100%', anchored: true });
    expect(r.pods).toBeGreaterThan(20_000);
    expect(r.commands).toBeGreaterThan(1);
    expect(r.cpuMs).toBeLessThan(5000);
  });
});
