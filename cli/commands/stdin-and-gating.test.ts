// `-f -` (standard input) for simulate and migrate, and `simulate --fail-on-pending` for CI.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bufferIO } from '../io';
import { main } from '../main';

const SEED = join(import.meta.dirname, '..', '..', 'shared', 'api', 'convert', 'testdata', 'seed-provisioner.yaml');

async function run(argv: string[], stdin = '') {
  const io = bufferIO(stdin);
  const code = await main(argv, io);
  return { code, stdout: io.stdout.join(''), stderr: io.stderr.join('') };
}

const pods = (arch: string, names: string[]) =>
  names
    .map(
      (name) => `apiVersion: v1
kind: Pod
metadata: { name: ${name} }
spec:
  nodeSelector: { kubernetes.io/arch: ${arch} }
  containers: [{ name: c, image: x, resources: { requests: { cpu: 500m, memory: 512Mi } } }]
`,
    )
    .join('---\n');

describe('standard input and --fail-on-pending', () => {
  it('simulate -f - plans what standard input holds, naming it <stdin> in errors', async () => {
    const ok = await run(['simulate', '-f', '-', '-o', 'json'], pods('amd64', ['a', 'b']));
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).summary).toMatchObject({ pods: 2, scheduledPods: 2 });

    const bad = await run(['simulate', '-f', '-'], 'apiVersion: v1\nkind: Pod\nmetadata: {}\n');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('<stdin>');
    expect(bad.stdout).toBe('');
  });

  it('refuses - given twice, since standard input can be read only once', async () => {
    const out = await run(['simulate', '-f', '-', '-f', '-'], pods('amd64', ['a']));
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('standard input can be read only once');
  });

  it('migrate - converts standard input as it converts a file', async () => {
    const text = readFileSync(SEED, 'utf8');
    const fromFile = await run(['migrate', SEED]);
    const fromStdin = await run(['migrate', '-'], text);
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.stdout).toBe(fromFile.stdout);
    expect(fromStdin.stderr).toBe(fromFile.stderr.replaceAll(SEED, '<stdin>'));
  });

  it('--fail-on-pending exits 1 with every pending pod and its reason on stderr, and still prints the plan', async () => {
    const text = `${pods('s390x', ['odd-1', 'odd-2'])}---\n${pods('amd64', ['fine'])}`;
    const gated = await run(['simulate', '-f', '-', '--fail-on-pending', '-o', 'json'], text);
    expect(gated.code).toBe(1);
    expect(JSON.parse(gated.stdout).summary).toMatchObject({ pods: 3, scheduledPods: 1 });
    expect(gated.stderr).toContain('2 pod(s) would stay pending (--fail-on-pending):');
    expect(gated.stderr).toMatch(/default\/odd-1: .+/);
    expect(gated.stderr).toContain('default/odd-2: ');

    const passing = await run(['simulate', '-f', '-', '--fail-on-pending'], pods('amd64', ['fine']));
    expect(passing.code).toBe(0);
    const ungated = await run(['simulate', '-f', '-'], text);
    expect(ungated.code).toBe(0);
  });
});
