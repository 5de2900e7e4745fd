import { describe, expect, it } from 'vitest';
import { type BenchReport, renderBenchTable } from './report-table';
import { checkTargets } from './targets';
import { findWorkload } from './workloads';

const measurement = {
  workload: 'karpenter-5k',
  description: 'd',
  pods: 5000,
  scheduledPods: 5000,
  wallMs: 1234.4,
  cpuMs: 1100.2,
  podsPerSecond: 4050.6,
  warmWallMs: 801.2,
  peakRssBytes: 312 * 2 ** 20,
  nodeCount: 812,
  costPerHour: 321.5,
  lowerBoundPerHour: 300,
  costRatio: 1.0716,
  loadAverage: [3.14, 2, 1],
};

function report(podsPerSecond: number): BenchReport {
  const results = [checkTargets(findWorkload('karpenter-5k')!, { ...measurement, podsPerSecond })];
  return {
    command: 'npm run bench',
    machine: { cpus: 2, cpuModel: 'Test CPU', node: 'v20.0.0', platform: 'linux/x64' },
    results,
    failures: [{ workload: 'unconstrained-10k', error: 'boom' }],
    pass: false,
  };
}

describe('renderBenchTable', () => {
  it('prints one row per workload with its measurements and verdict', () => {
    const lines = renderBenchTable(report(12050.6)).split('\n');
    expect(lines[0]).toMatch(
      /^WORKLOAD\s+PODS\s+SCHEDULED\s+WALL MS\s+CPU MS\s+PODS\/S\s+WARM MS\s+PEAK RSS\s+NODES\s+COST\/H\s+LB\/H\s+RATIO\s+CPU ×\s+LOAD\s+RESULT$/,
    );
    expect(lines[1]).toMatch(
      /^karpenter-5k\s+5000\s+5000\s+1234\s+1100\s+12051\s+801\s+312 MiB\s+812\s+\$321\.5000\s+\$300\.0000\s+1\.072\s+-\s+3\.1\s+pass$/,
    );
    expect(lines).toContain('unconstrained-10k: FAILED TO RUN: boom');
    expect(lines.at(-1)).toBe('Overall: FAIL');
  });

  it('names the missed target', () => {
    expect(renderBenchTable(report(1000))).toContain('FAIL (≥ 10000 pods/s)');
  });
});
