// The scenario work cap through the real CLI (docs/scenarios.md, "Size limits"): a scenario within the simulated-time,
// step and sweep limits but with pods × instants that would run for most of an hour is refused at once.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'karpless-work-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function simulate(name: string, until: string, replicas: number): ReturnType<typeof spawnSync> {
  for (const m of ['nodepool.yaml', 'web.yaml']) {
    copyFileSync(join(ROOT, 'examples', 'scenarios', 'manifests', m), join(dir, m));
  }
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      'apiVersion: karpless.dev/v1alpha1',
      'kind: Scenario',
      `metadata: { name: ${name} }`,
      'spec:',
      `  until: ${until}`,
      '  steps:',
      '    - { at: 0s, apply: [nodepool.yaml, web.yaml] }',
      `    - { at: 0s, scale: { kind: Deployment, namespace: shop, name: web, replicas: ${replicas} } }`,
      '',
    ].join('\n'),
  );
  // Bounded: a run past the cap would otherwise take most of an hour; the kill turns that into a failed assertion.
  return spawnSync(process.execPath, [join(ROOT, 'cli', 'bin.mjs'), 'simulate', '--scenario', file], {
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('karpless simulate --scenario: the work cap', () => {
  it('refuses 100,000 pods over 720h at once, naming the file, the fields and the estimate', () => {
    const run = simulate('huge', '720h', 100_000);
    expect(run.signal).toBeNull();
    expect(run.status).toBe(2);
    const lines = String(run.stderr).trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `${join(dir, 'huge.yaml')}#1 Scenario/huge: spec.until: (1 + √100,000 pods) × 64,802 instants (sweepEvery 1m ` +
        'and a collection every 2m over 720h, plus 2 step firings) is 20,556,994 units of work, past the limit of ' +
        '80,000; use fewer pods (spec.steps replicas), a shorter until or a longer sweepEvery',
    );
  }, 70_000);

  it('accepts and runs a small scenario', () => {
    // (1 + √40) × (60 sweeps + 30 collections + 2 firings) is far under the cap: the run completes.
    const run = simulate('small', '1h', 40);
    expect(run.status).toBe(0);
    expect(String(run.stdout)).toContain('End state: 40/40 pods running');
  }, 70_000);
});
