// Builds the provisioner as the stack does (stacks/bundling.ts) into a temporary directory and runs it in a fresh
// Node process from there, so a bundle that cannot find highs.wasm or the catalog fails here, not on AWS.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_ASSETS, copyBundleAssets, esbuildOptions } from './bundling';
import { REPO_ROOT } from './constructs/control-functions';
import { FUNCTIONS } from './functions';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'karpless-bundle-'));
  dirs.push(dir);
  return dir;
};

/** Runs `file` in a fresh node process with the Lambda's working directory elsewhere, as /var/task is not cwd-free. */
function runNode(file: string, cwd: string): { ok: boolean; out: string } {
  try {
    const out = execFileSync(process.execPath, [file], {
      cwd,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { ok: true, out };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

async function bundleInto(dir: string): Promise<void> {
  await build(await esbuildOptions(FUNCTIONS.provisioner.entry, join(dir, 'index.mjs'), dir));
  await build(await esbuildOptions('stacks/testing/bundle-probe.ts', join(dir, 'probe.mjs'), dir));
}

describe('the provisioner bundle', () => {
  let shipped: string;
  let bare: string;
  beforeAll(async () => {
    shipped = tempDir();
    await bundleInto(shipped);
    copyBundleAssets(shipped);
    // The nodejs22.x runtime provides the AWS SDK v3 the bundle leaves external; link ours in its place.
    mkdirSync(join(shipped, 'node_modules'));
    symlinkSync(join(REPO_ROOT, 'node_modules', '@aws-sdk'), join(shipped, 'node_modules', '@aws-sdk'));
    bare = tempDir();
    await bundleInto(bare);
  }, 120_000);
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("leaves out client-node's generated models and the shimmed packages, and stays within 600 KiB", () => {
    const code = readFileSync(join(shipped, 'index.mjs'), 'utf8');
    expect(code).not.toContain('V1PodSpec');
    expect(code).toContain('not supported in the Karpless Lambda bundle');
    expect(code.length).toBeLessThanOrEqual(600 * 1024);
  });

  it('ships highs.wasm and the catalog beside index.mjs', () => {
    for (const { to } of BUNDLE_ASSETS) expect(statSync(join(shipped, to)).size).toBeGreaterThan(100_000);
    expect(existsSync(join(bare, 'highs.wasm'))).toBe(false);
  });

  it('solves an LP, loads the catalog and calls the Kubernetes API from the bundle directory in a fresh process', () => {
    const run = runNode(join(shipped, 'probe.mjs'), tmpdir());
    expect(run.ok, run.out).toBe(true);
    const result = JSON.parse(run.out.trim().split('\n').at(-1) ?? '{}');
    expect(result.lpCost).toBeCloseTo(11, 6);
    expect(result.instanceTypes).toBeGreaterThan(100);
    expect(result.nodes).toEqual(['n1']);
    expect(result.authorization).toBe('Bearer probe-token');
  });

  it('imports the handler module (HiGHS loads at import) and exports handler', () => {
    const check = join(shipped, 'check.mjs');
    execFileSync(process.execPath, [
      '-e',
      `require('node:fs').writeFileSync(${JSON.stringify(check)}, "const m = await import('./index.mjs'); console.log(typeof m.handler);")`,
    ]);
    const run = runNode(check, tmpdir());
    expect(run.ok, run.out).toBe(true);
    expect(run.out.trim().split('\n').at(-1)).toBe('function');
  });

  it('fails with the missing path named when the assets are not shipped', () => {
    const run = runNode(join(bare, 'probe.mjs'), tmpdir());
    expect(run.ok).toBe(false);
    expect(run.out).toContain(`highs.wasm not found at ${join(bare, 'highs.wasm')}`);
  });
});
