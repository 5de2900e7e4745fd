// `simulate -f` with CapacityReservation documents (docs/scenarios.md, Capacity reservations): the plan fills the
// reservations an EC2NodeClass selects before falling back, and a bad document names its file, object and field.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bufferIO } from '../io';
import { main } from '../main';

const ROOT = join(import.meta.dirname, '../..');
const POOL = join(ROOT, 'examples/scenarios/manifests/reserved.yaml');
const RESERVATIONS = join(ROOT, 'examples/capacity-reservations');

async function run(...argv: string[]) {
  const io = bufferIO();
  const code = await main(['simulate', ...argv], io);
  return { code, stdout: io.stdout.join(''), stderr: io.stderr.join('') };
}

type Report = {
  nodeClaims: { labels: Record<string, string>; pods: string[] }[];
  unschedulable: unknown[];
  summary: { costPerHour: number; lowerBoundPerHour: number };
};

describe('karpless simulate -f with CapacityReservation documents', () => {
  it('launches into the selected reservations first, then falls back to on-demand', async () => {
    const out = await run('-f', POOL, '-f', RESERVATIONS, '--output', 'json');
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const report = JSON.parse(out.stdout) as Report;
    expect(report.unschedulable).toEqual([]);
    const placed = report.nodeClaims
      .map((c) => [
        c.labels['karpenter.sh/capacity-type'],
        c.labels['karpenter.k8s.aws/capacity-reservation-id'],
        c.labels['karpenter.k8s.aws/capacity-reservation-type'],
      ])
      .sort();
    expect(placed).toEqual([
      ['on-demand', undefined, undefined],
      ['reserved', 'cr-0a1b2c3d4e5f60001', 'default'],
      ['reserved', 'cr-0a1b2c3d4e5f60002', 'capacity-block'],
    ]);
  });

  it('bounds the cost with the room of the reservations, below the plan that used it', async () => {
    const out = await run('-f', POOL, '-f', RESERVATIONS, '--output', 'json');
    const { summary } = JSON.parse(out.stdout) as Report;
    // Two trainers ride free in the reservations, the third on an on-demand m5.xlarge ($0.192/h). Without the room
    // the bound was three trainers' cpu at the on-demand rate ($0.44/h), above the plan; with the room priced as
    // any offering it would be about zero. The LP covers 9 cpu: 2 × 3.92 reserved, 1.16 at $0.192 per 3.92 cpu.
    expect(summary.costPerHour).toBeCloseTo(0.192, 6);
    expect(summary.lowerBoundPerHour).toBeGreaterThan(0.05);
    expect(summary.lowerBoundPerHour).toBeLessThanOrEqual(summary.costPerHour);
  });

  it('without the documents, the same manifests run on on-demand only', async () => {
    const out = await run('-f', POOL, '--output', 'json');
    const report = JSON.parse(out.stdout) as Report;
    expect(report.nodeClaims.map((c) => c.labels['karpenter.sh/capacity-type'])).toEqual([
      'on-demand',
      'on-demand',
      'on-demand',
    ]);
  });

  it('names the file, the object and the field of a bad CapacityReservation', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'karpless-cr-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: karpless.dev/v1alpha1',
        'kind: CapacityReservation',
        'metadata: {name: broken}',
        'spec: {id: odcr-1, instanceType: m5.xlarge, availabilityZone: us-east-1a, instanceCount: 0,',
        '  reservationType: capacity-block}',
      ].join('\n'),
    );
    const out = await run('-f', POOL, '-f', file);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain(
      `${file}#1 CapacityReservation/broken: spec.id: "odcr-1" does not match ^cr-[0-9a-z]+$`,
    );
    expect(out.stderr).toContain(`${file}#1 CapacityReservation/broken: spec.instanceCount:`);
    expect(out.stderr).toContain(`${file}#1 CapacityReservation/broken: spec.endsAfter: required for a capacity-block`);
  });
});
