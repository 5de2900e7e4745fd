import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLE_ASSETS, LAMBDA_SHIMS, PREBUILD_DIR } from './bundling';
import { bundlingOptions } from './constructs/control-functions';
import { checkTopology, FUNCTION_NAMES, FUNCTIONS, type FunctionName, type FunctionSpec, plans } from './functions';

const withTrigger = (name: FunctionName, trigger: FunctionSpec['trigger']) => ({
  ...FUNCTIONS,
  [name]: { ...FUNCTIONS[name], trigger },
});

describe('function topology', () => {
  it('deploys one consumer per queue and the scheduled GC; lifecycle and disruption run in the FIFO consumer', () => {
    expect(() => checkTopology()).not.toThrow();
    expect(FUNCTION_NAMES).toEqual(['provisioner', 'interruption', 'termination', 'gc']);
  });

  it('rejects a second consumer on a queue', () => {
    expect(() => checkTopology(withTrigger('interruption', { queue: 'events', batchSize: 10 }))).toThrow(
      'queue events has two consumers, provisioner and interruption',
    );
  });

  it('rejects a queue nobody consumes', () => {
    expect(() => checkTopology(withTrigger('termination', { schedule: 'gc' }))).toThrow(
      'queue termination has no consumer',
    );
  });

  it('points every function at functions/<name>/handler.ts', () => {
    for (const name of FUNCTION_NAMES) expect(FUNCTIONS[name].entry).toBe(`functions/${name}/handler.ts`);
  });
});

describe('bundling', () => {
  it('builds minified ESM for Node 22 with the local esbuild, the AWS SDK bundled in', () => {
    const options = bundlingOptions(true);
    expect(options).toMatchObject({ minify: true, target: 'node22', format: 'esm', forceDockerBundling: false });
    expect(options.externalModules).toEqual([]);
    expect(options.banner).toContain('createRequire');
  });

  it('swaps shimmed packages for shims that exist, resolves client-node and the SDK clients to the prebuild, and copies highs.wasm and the catalog', () => {
    const options = bundlingOptions(true);
    const aliases = Object.fromEntries(
      ((options.esbuildArgs?.['--alias'] ?? []) as string[]).map((a) => [
        a.slice(0, a.indexOf('=')),
        a.slice(a.indexOf('=') + 1),
      ]),
    );
    for (const pkg of Object.keys(LAMBDA_SHIMS)) expect(existsSync(aliases[pkg] ?? ''), pkg).toBe(true);
    // client-node and every SDK client the functions use resolve into the prebuild the beforeBundling hook writes.
    expect(aliases['@kubernetes/client-node']).toBe(join(PREBUILD_DIR, 'client-node-lean.mjs'));
    for (const pkg of ['ec2', 'dynamodb', 'sqs', 'eks', 'ssm', 'iam', 'sts', 'pricing'].map(
      (c) => `@aws-sdk/client-${c}`,
    )) {
      expect(aliases[pkg], pkg).toBe(join(PREBUILD_DIR, 'aws-sdk', pkg));
    }
    expect(Object.keys(aliases).filter((pkg) => !LAMBDA_SHIMS[pkg] && !aliases[pkg]?.startsWith(PREBUILD_DIR))).toEqual(
      [],
    );
    expect(options.commandHooks?.beforeBundling('/repo', '/out')).toEqual([
      `cd "/repo" && node --import tsx stacks/prebuild.ts "${PREBUILD_DIR}"`,
    ]);
    const commands = options.commandHooks?.afterBundling('/repo', '/out') ?? [];
    expect(commands).toEqual([
      'mkdir -p "/out" && cp "/repo/node_modules/highs/build/highs.wasm" "/out/highs.wasm"',
      'mkdir -p "/out/data" && cp "/repo/shared/catalog/data/us-east-1.json" "/out/data/us-east-1.json"',
    ]);
    expect(BUNDLE_ASSETS.map((a) => a.to)).toEqual(['highs.wasm', 'data/us-east-1.json']);
  });

  it('ships the solver only with the functions that plan: the termination and GC functions get the catalog alone', () => {
    const planners = FUNCTION_NAMES.filter((name) => plans(FUNCTIONS[name]));
    expect(planners).toEqual(['provisioner', 'interruption']);
    expect(bundlingOptions(false).commandHooks?.afterBundling('/repo', '/out')).toEqual([
      'mkdir -p "/out/data" && cp "/repo/shared/catalog/data/us-east-1.json" "/out/data/us-east-1.json"',
    ]);
  });
});
