// Builds the provisioner as the stack does (stacks/bundling.ts) into a temporary directory and runs it in a fresh
// Node process from there, with no node_modules in reach: a bundle that cannot find highs.wasm or the catalog, or
// that still needs a package at run time, fails here, not on AWS.
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { imageNode } from '../testkit/image-node';
import { BUNDLE_ASSETS, copyBundleAssets, esbuildOptions, sdkShare } from './bundling';
import { FUNCTIONS } from './functions';
import { runSdkProbe } from './testing/sdk-probe';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Lambda hands a function its role's credentials in the environment; the bundle's credential shim reads them. */
const LAMBDA_ENV = {
  AWS_ACCESS_KEY_ID: 'AKIDPROBE',
  AWS_SECRET_ACCESS_KEY: 'probe-secret',
  AWS_SESSION_TOKEN: 'probe',
};

/** Runs `file` in a fresh node process with the Lambda's working directory elsewhere, as /var/task is not cwd-free. */
function runNode(file: string, cwd: string, node = process.execPath): { ok: boolean; out: string } {
  try {
    const out = execFileSync(node, [file], {
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

/** Each bundle the tests read, by its path under the build directory: a function's `<name>/index.mjs`, and the
 * probe beside the provisioner's. */
const ENTRIES = {
  'provisioner/index': FUNCTIONS.provisioner.entry,
  'provisioner/probe': 'stacks/testing/bundle-probe.ts',
  'termination/index': FUNCTIONS.termination.entry,
  'gc/index': FUNCTIONS.gc.entry,
} as const;
type Entry = keyof typeof ENTRIES;

/**
 * Builds every entry with the function build's options in one esbuild run. Without code splitting esbuild bundles
 * each entry point on its own, so each output is byte for byte what a build of that entry alone writes (compared
 * when this was written); the modules they share, the AWS SDK above all, are parsed once instead of four times.
 * Returns each output's metafile, as a build of that entry alone would report it.
 */
async function buildAll(dir: string): Promise<Record<Entry, Metafile>> {
  const {
    entryPoints: _one,
    outfile: _single,
    ...options
  } = await esbuildOptions(FUNCTIONS.provisioner.entry, join(dir, 'unused.mjs'), dir);
  const entryPoints = Object.fromEntries(Object.entries(ENTRIES).map(([out, entry]) => [out, join(REPO_ROOT, entry)]));
  const { metafile } = await build({
    ...options,
    entryPoints,
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    metafile: true,
  });
  const outputs = Object.entries(metafile.outputs);
  const metafileOf = (entry: Entry): Metafile => {
    const own = outputs.filter(([file]) => file.endsWith(`/${entry}.mjs`) || file.endsWith(`/${entry}.mjs.map`));
    if (own.length === 0) throw new Error(`esbuild wrote no output for ${entry}`);
    return { inputs: metafile.inputs, outputs: Object.fromEntries(own) };
  };
  return Object.fromEntries((Object.keys(ENTRIES) as Entry[]).map((e) => [e, metafileOf(e)])) as Record<
    Entry,
    Metafile
  >;
}

let root: string;
let metafiles: Record<Entry, Metafile>;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'karpless-bundle-'));
  metafiles = await buildAll(root);
  // The one build is 6 s of esbuild CPU (the six builds it replaced were 13 s), 33–35 s of wall time at load average
  // 15 on 2 cores; a clean clone also runs the prebuild (stacks/prebuild.ts) first.
}, 120_000);
afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('the provisioner bundle', () => {
  let shipped: string;
  let bare: string;
  let metafile: Metafile;
  /** The probe's one run from the shipped directory: two tests read its output. */
  let probe: { ok: boolean; out: string } | undefined;
  const probeRun = () => {
    probe ??= runNode(join(shipped, 'probe.mjs'), tmpdir());
    return probe;
  };
  beforeAll(() => {
    shipped = join(root, 'provisioner');
    metafile = metafiles['provisioner/index'];
    // The same two files in a directory of their own, without the assets.
    bare = join(root, 'bare');
    mkdirSync(bare);
    for (const file of ['index.mjs', 'probe.mjs']) copyFileSync(join(shipped, file), join(bare, file));
    copyBundleAssets(shipped, true);
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
    const run = probeRun();
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
    const run = probeRun();
    expect(run.ok, run.out).toBe(true);
    const result = JSON.parse(run.out.trim().split('\n').at(-1) ?? '{}');
    expect(result.lpCost).toBeCloseTo(11, 6);
    expect(result.instanceTypes).toBeGreaterThan(100);
    expect(result.nodes).toEqual(['n1']);
    expect(result.authorization).toBe('Bearer probe-token');
  });

  // On the test's Node and on Node 22, the Lambda runtime's major (the forwarder image's release stands in for it):
  // there an ES import of node:http would load undici and compile its WebAssembly parser (lambda-shims/http.cjs).
  it.each([
    ['this Node', () => process.execPath],
    ['Node 22', imageNode],
  ])(
    'imports the handler module without compiling any WebAssembly (HiGHS waits for the first plan), and exports handler, on %s',
    { timeout: 180_000 },
    (_, node) => {
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
      const run = runNode(check, tmpdir(), node());
      expect(run.ok, run.out).toBe(true);
      expect(JSON.parse(run.out.trim().split('\n').at(-1) ?? '{}')).toEqual({ handler: 'function', compiled: 0 });
    },
  );

  it('imports the handler without loading the Node modules only some paths need (child_process, v8, web streams)', () => {
    // Each was a share of every cold start (docs/performance.md, "Lambda bundles"): child_process for client-node's
    // command-running auth, v8 for the flag HiGHS needs when it loads, web streams for middy's streamed responses.
    const check = join(shipped, 'modules.mjs');
    const code = [
      "await import('./index.mjs');",
      'console.log(JSON.stringify(process.moduleLoadList.filter((m) => m.startsWith("NativeModule "))));',
    ].join('\n');
    writeFileSync(check, code);
    const run = runNode(check, tmpdir());
    expect(run.ok, run.out).toBe(true);
    const loaded: string[] = JSON.parse(run.out.trim().split('\n').at(-1) ?? '[]');
    // The modules the bundle does need at import are in the list, so an empty intersection below means something.
    expect(loaded).toEqual(expect.arrayContaining(['NativeModule https', 'NativeModule crypto']));
    for (const m of ['child_process', 'v8', 'stream/web', 'dgram']) expect(loaded).not.toContain(`NativeModule ${m}`);
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
  beforeAll(() => {
    metafile = metafiles[`${name}/index`];
    bytes = statSync(join(root, name, 'index.mjs')).size;
  });

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
