// Copies the AWS SDK v3 clients into the build cache with their schema modules rewritten so esbuild can tree-shake
// them, and the function build aliases each client to its copy (stacks/bundling.ts). Why: a client's
// dist-es/schemas/schemas_0.js declares every shape of the service (EC2: 3,400, 1.3 MB) as `export var X$ = [...]`,
// and many carry object literals with computed keys (`{ [_xN]: _m }`, `_xN` being a string constant declared at the
// top). esbuild cannot prove a computed key free of side effects, so it keeps every such shape: ~550 KiB for EC2 even
// when the code sends one command. Writing the constant in place (`{ "xmlName": _m }`) is the same object, and only
// the shapes of the commands a function sends survive. Same SDK, same code path; the rewrite is checked shape for
// shape against the original (stacks/aws-sdk-prebuild.test.ts).
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';

/** `const _xN = "xmlName";` at the top of a schema module. */
const STRING_CONSTANT = /^const (_\w+) = ("(?:[^"\\\n]|\\.)*");$/gm;
/** A computed object key naming one of those constants. */
const COMPUTED_KEY = /\[(_\w+)\]:/g;

/** Written into each copy: which package version and which rewrite made it. */
const STAMP = '.karpless-prebuild';

/** Bump when inlineSchemaKeys changes, so copies written by the old rewrite are made again. */
const REWRITE_VERSION = 1;

/** The schema module with each computed key that names a string constant written as that string. */
export function inlineSchemaKeys(source: string): string {
  const constants = new Map<string, string>();
  for (const m of source.matchAll(STRING_CONSTANT)) constants.set(m[1] as string, m[2] as string);
  return source.replace(COMPUTED_KEY, (key, name: string) => {
    const value = constants.get(name);
    return value === undefined ? key : `${value}:`;
  });
}

/** The @aws-sdk packages that carry Smithy schema modules: every client, and the clients nested in the SDK. */
export function schemaPackages(nodeModules: string): string[] {
  const scope = join(nodeModules, '@aws-sdk');
  return readdirSync(scope)
    .filter((name) => existsSync(join(scope, name, 'dist-es', 'schemas')))
    .map((name) => `@aws-sdk/${name}`);
}

function rewriteSchemas(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) rewriteSchemas(path);
    else if (/^schemas_\d+\.js$/.test(entry.name)) writeFileSync(path, inlineSchemaKeys(readFileSync(path, 'utf8')));
  }
}

/** Where the copies go: inside the repository's node_modules, so their own imports (@smithy/*, @aws-sdk/core) resolve
 * to the installed packages whichever directory a build writes to. */
export const awsSdkCacheDir = (nodeModules: string) => join(nodeModules, '.cache', 'karpless', 'aws-sdk');

/** The esbuild aliases to the copies (which prebuildAwsSdk writes). */
export function awsSdkAliases(nodeModules: string): Record<string, string> {
  const dir = awsSdkCacheDir(nodeModules);
  return Object.fromEntries(schemaPackages(nodeModules).map((pkg) => [pkg, join(dir, pkg)]));
}

/**
 * Writes the copy of each schema package (package.json and dist-es, schemas rewritten). A copy made from the
 * installed package.json by the current rewrite is reused. Each copy is built aside and renamed into place, so builds running at once
 * (the CDK bundles functions in turn, tests in parallel) never see half a copy.
 */
export function prebuildAwsSdk(nodeModules: string): Record<string, string> {
  const aliases = awsSdkAliases(nodeModules);
  for (const [pkg, to] of Object.entries(aliases)) {
    const from = join(nodeModules, pkg);
    const manifest = readFileSync(join(from, 'package.json'), 'utf8');
    const stamp = `karpless aws-sdk prebuild ${REWRITE_VERSION}\n${manifest}`;
    const stampAt = join(to, STAMP);
    if (existsSync(stampAt) && readFileSync(stampAt, 'utf8') === stamp) continue;
    mkdirSync(dirname(to), { recursive: true });
    const work = mkdtempSync(`${to}.tmp-`);
    cpSync(join(from, 'dist-es'), join(work, 'dist-es'), { recursive: true });
    rewriteSchemas(join(work, 'dist-es'));
    writeFileSync(join(work, 'package.json'), manifest);
    writeFileSync(join(work, STAMP), stamp);
    const stale = `${work}.stale`;
    if (existsSync(to)) renameSync(to, stale);
    try {
      renameSync(work, to);
    } catch {
      // Another build put its copy in place first: it is the same files.
      rmSync(work, { recursive: true, force: true });
    }
    rmSync(stale, { recursive: true, force: true });
  }
  return aliases;
}
