// Builds the provisioner as the stack does (stacks/bundling.ts) into a temporary directory and runs it in a fresh
// Node process from there, with no node_modules in reach: a bundle that cannot find highs.wasm or the catalog, or
// that still needs a package at run time, fails here, not on AWS.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BUNDLE_ASSETS, copyBundleAssets, esbuildOptions, sdkShare } from './bundling';
import { FUNCTIONS } from './functions';
import { runSdkProbe } from './testing/sdk-probe';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'karpless-bundle-'));
  dirs.push(dir);
  return dir;
};

/** Lambda hands a function its role's credentials in the environment; the bundle's credential shim reads them. */
const LAMBDA_ENV = {
  AWS_ACCESS_KEY_ID: 'AKIDPROBE',
  AWS_SECRET_ACCESS_KEY: 'probe-secret',
  AWS_SESSION_TOKEN: 'probe',
};

/** Runs `file` in a fresh node process with the Lambda's working directory elsewhere, as /var/task is not cwd-free. */
function runNode(file: string, cwd: string): { ok: boolean; out: string } {
  try {
    const out = execFileSync(process.execPath, [file], {
      cwd,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', ...LAMBDA_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { ok: true, out };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

async function bundleInto(dir: string): Promise<Metafile> {
  const { metafile } = await build({
    ...(await esbuildOptions(FUNCTIONS.provisioner.entry, join(dir, 'index.mjs'), dir)),
    metafile: true,
  });
  await build(await esbuildOptions('stacks/testing/bundle-probe.ts', join(dir, 'probe.mjs'), dir));
  return metafile as Metafile;
}

describe('the provisioner bundle', () => {
  let shipped: string;
  let bare: string;
  let metafile: Metafile;
  beforeAll(async () => {
    shipped = tempDir();
    metafile = await bundleInto(shipped);
    copyBundleAssets(shipped, true);
    bare = tempDir();
    await bundleInto(bare);
  }, 120_000);
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("leaves out client-node's generated models, the shimmed packages and the SDK shapes no command uses", () => {
    const code = readFileSync(join(shipped, 'index.mjs'), 'utf8');
    expect(code).not.toContain('V1PodSpec');
    expect(code).toContain('not supported in the Karpless Lambda bundle');
    // The commands the provisioner sends keep their shapes; the EC2 API's other 750 operations do not.
    expect(code).toContain('CreateFleetRequest');
    expect(code).not.toContain('AcceptAddressTransferRequest');
    expect(code).not.toContain('ModifyVpnTunnelOptionsSpecification');
    // The default credential chain's SSO and STS clients are shimmed away.
    expect(code).not.toContain('GetRoleCredentials');
    expect(code).not.toContain('AssumeRoleWithWebIdentity');
  });

  it('keeps its own code within 600 KiB, the AWS SDK it carries within 450 KiB', () => {
    const { sdk, rest } = sdkShare(metafile);
    expect(rest).toBeLessThanOrEqual(600 * 1024);
    expect(sdk).toBeGreaterThan(100 * 1024);
    expect(sdk).toBeLessThanOrEqual(450 * 1024);
  });

  it('sends AWS requests from the bundle exactly as the SDK in node_modules does, signed with the environment credentials', async () => {
    const run = runNode(join(shipped, 'probe.mjs'), tmpdir());
    expect(run.ok, run.out).toBe(true);
    const { sdk } = JSON.parse(run.out.trim().split('\n').at(-1) ?? '{}');
    for (const [k, v] of Object.entries(LAMBDA_ENV)) vi.stubEnv(k, v);
    const reference = await runSdkProbe();
    vi.unstubAllEnvs();
    expect(sdk).toEqual(reference);
    expect(sdk.requests.map((r: { credential?: string }) => r.credential)).toEqual(['AKIDPROBE', 'AKIDPROBE']);
    expect(sdk.requests[0].body).toContain('Action=CreateFleet');
    expect(sdk.requests[0].body).toContain('LaunchTemplateConfigs.1.Overrides.2.Priority=1.5');
    expect(sdk.fleetInstances).toEqual(['i-0123456789abcdef0']);
    expect(sdk.fleetErrors).toEqual(['InsufficientInstanceCapacity:m5.xlarge']);
    expect(sdk.putItemError).toBe('ConditionalCheckFailedException');
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

  it('imports the handler module without compiling any WebAssembly (HiGHS waits for the first plan), and exports handler', () => {
    const check = join(shipped, 'check.mjs');
    // Counts WebAssembly compilations during the import; the probe run above shows the same bundle does compile HiGHS
    // when asked to solve.
    const code = [
      'let compiled = 0;',
      "for (const fn of ['compile', 'instantiate', 'compileStreaming', 'instantiateStreaming']) {",
      '  const real = WebAssembly[fn];',
      '  WebAssembly[fn] = (...args) => { compiled++; return real.apply(WebAssembly, args); };',
      '}',
      "const m = await import('./index.mjs');",
      'console.log(JSON.stringify({ handler: typeof m.handler, compiled }));',
    ].join('\n');
    writeFileSync(check, code);
    const run = runNode(check, tmpdir());
    expect(run.ok, run.out).toBe(true);
    expect(JSON.parse(run.out.trim().split('\n').at(-1) ?? '{}')).toEqual({ handler: 'function', compiled: 0 });
  });

  it('fails with the missing path named when the assets are not shipped', () => {
    const run = runNode(join(bare, 'probe.mjs'), tmpdir());
    expect(run.ok).toBe(false);
    expect(run.out).toContain(`highs.wasm not found at ${join(bare, 'highs.wasm')}`);
  });
});

describe.each(['termination', 'gc'] as const)('the %s bundle', (name) => {
  let metafile: Metafile;
  let bytes: number;
  beforeAll(async () => {
    const dir = tempDir();
    const result = await build({
      ...(await esbuildOptions(FUNCTIONS[name].entry, join(dir, 'index.mjs'), dir)),
      metafile: true,
    });
    metafile = result.metafile as Metafile;
    bytes = statSync(join(dir, 'index.mjs')).size;
  }, 120_000);

  // Its role may not launch (stacks/functions.ts), so its code does not either.
  it('carries no launch path: no solver, no SSM or IAM client, no user data', () => {
    const output = Object.entries(Object.values(metafile.outputs).find((o) => o.entryPoint)?.inputs ?? {});
    const shipped = (part: string) =>
      output.filter(([file]) => file.includes(part)).reduce((sum, [, v]) => sum + v.bytesInOutput, 0);
    // A top-level constant esbuild cannot prove pure stays behind when its module is reached through a barrel (tens
    // of bytes); any of these that ships code is kilobytes.
    for (const part of ['highs', 'client-ssm', 'client-iam', 'smol-toml', 'shared/scheduling/', 'ec2/userdata/']) {
      expect(shipped(part), part).toBeLessThan(256);
    }
    const inputs = output.map(([file]) => file);
    expect(inputs.some((i) => i.includes('shared/aws/instance-provider.ts'))).toBe(true);
  });

  it('is within 600 KiB minified, the AWS SDK included', () => {
    expect(bytes).toBeLessThanOrEqual(600 * 1024);
    expect(sdkShare(metafile).sdk).toBeGreaterThan(100 * 1024);
  });
});
