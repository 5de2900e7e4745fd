import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { awsSdkAliases, inlineSchemaKeys, prebuildAwsSdk, schemaPackages } from './aws-sdk-prebuild';
import { REPO_ROOT } from './constructs/control-functions';

const NODE_MODULES = join(REPO_ROOT, 'node_modules');
const dir = mkdtempSync(join(tmpdir(), 'karpless-sdk-prebuild-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Loads a built file with Node's own require: an import() here would go through vitest's module transform, which
 * took most of this file's time on the megabytes of schema code (41 s at load average 15). */
const load = createRequire(import.meta.url);

/** Every exported shape of a schema module (`X$`), lazy references written as their source text. */
async function shapes(schemaFile: string, name: string): Promise<string> {
  const outfile = join(dir, `${name}.cjs`);
  await build({ entryPoints: [schemaFile], outfile, bundle: true, platform: 'node', format: 'cjs', logLevel: 'error' });
  const mod = load(outfile) as Record<string, unknown>;
  const exported = Object.fromEntries(Object.entries(mod).filter(([k]) => k.endsWith('$')));
  return JSON.stringify(exported, (_k, v) => (typeof v === 'function' ? `fn:${String(v)}` : v));
}

describe('inlineSchemaKeys', () => {
  it('writes computed keys that name string constants as those strings, and leaves everything else alone', () => {
    const source = [
      'const _xN = "xmlName";',
      'const _q = "a \\"quoted\\" name";',
      'export var A$ = [3, n0, _A, 0, [_M], [[1, { [_xN]: `Min`, [_q]: 1, [other]: 2 }]]];',
    ].join('\n');
    expect(inlineSchemaKeys(source)).toBe(
      [
        'const _xN = "xmlName";',
        'const _q = "a \\"quoted\\" name";',
        'export var A$ = [3, n0, _A, 0, [_M], [[1, { "xmlName": `Min`, "a \\"quoted\\" name": 1, [other]: 2 }]]];',
      ].join('\n'),
    );
  });
});

describe('prebuildAwsSdk', () => {
  const aliases = prebuildAwsSdk(NODE_MODULES);

  it('copies every client the functions use, and aliases each to its copy', () => {
    for (const c of ['ec2', 'dynamodb', 'sqs', 'eks', 'ssm', 'iam', 'sts', 'pricing']) {
      expect(schemaPackages(NODE_MODULES)).toContain(`@aws-sdk/client-${c}`);
    }
    expect(aliases).toEqual(awsSdkAliases(NODE_MODULES));
    for (const [pkg, copy] of Object.entries(aliases)) {
      expect(readFileSync(join(copy, 'package.json'), 'utf8')).toBe(
        readFileSync(join(NODE_MODULES, pkg, 'package.json'), 'utf8'),
      );
    }
  });

  it('leaves no computed key naming a string constant in any copy', () => {
    for (const copy of Object.values(aliases)) {
      const text = readFileSync(join(copy, 'dist-es', 'schemas', 'schemas_0.js'), 'utf8');
      expect(text).not.toMatch(/\[_\w+\]:/);
    }
  });

  it('gives every shape of every client exactly the value the original module gives it', {
    timeout: 120_000,
  }, async () => {
    for (const [pkg, copy] of Object.entries(aliases)) {
      const name = pkg.replace('@aws-sdk/', '');
      const original = await shapes(join(NODE_MODULES, pkg, 'dist-es', 'schemas', 'schemas_0.js'), `${name}-original`);
      const rewritten = await shapes(join(copy, 'dist-es', 'schemas', 'schemas_0.js'), `${name}-rewritten`);
      expect(original.length, pkg).toBeGreaterThan(1000);
      expect(rewritten === original, `${pkg}: the rewritten shapes differ`).toBe(true);
    }
  });
});
