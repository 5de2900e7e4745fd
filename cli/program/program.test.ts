import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { INVOKABLE_FUNCTIONS } from '../../local';
import packageJson from '../../package.json' with { type: 'json' };
import { bufferIO } from '../io';
import { main } from '../main';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Every repository file `entry` loads at startup: its runtime imports, transitively (type-only imports are erased). */
function startupFiles(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'(\.[^']+)'/gms)) {
      const spec = m[1] as string;
      const base = resolve(dirname(file), spec);
      const candidates = spec.endsWith('.json') ? [base] : [`${base}.ts`, join(base, 'index.ts')];
      const found = candidates.find((c) => {
        try {
          readFileSync(c);
          return true;
        } catch {
          return false;
        }
      });
      if (found && !found.endsWith('.json')) visit(found);
    }
  };
  visit(entry);
  return new Set([...seen].map((f) => relative(ROOT, f)));
}

describe('the karpless program', () => {
  it('prints its version from package.json', async () => {
    const io = bufferIO();
    expect(await main(['--version'], io)).toBe(0);
    expect(io.stdout.join('')).toBe(`${packageJson.version}\n`);
  });

  it('builds --help without loading any command implementation, the engine or an SDK', () => {
    const files = [...startupFiles(join(ROOT, 'cli', 'main.ts'))];
    expect(files).toContain('cli/program/commands.ts');
    const heavy = files.filter((f) =>
      /^cli\/commands\/(?!index\.ts)|^shared\/(?!errors|api\/limits|api\/controller-group)|^local\//.test(f),
    );
    expect(heavy).toEqual([]);
    const packages = files.flatMap((f) =>
      [...readFileSync(join(ROOT, f), 'utf8').matchAll(/^import\s+(?!type\b)[^;]*?from\s+'([^.][^']*)'/gms)].map(
        (m) => m[1],
      ),
    );
    expect(packages.filter((p) => p !== 'commander' && !p?.startsWith('node:'))).toEqual([]);
  });

  it('reports every missing required option of forwarder manifest at once, and marks them in its help', async () => {
    const io = bufferIO();
    expect(await main(['forwarder', 'manifest'], io)).toBe(2);
    expect(io.stderr.join('')).toBe("error: required options '--cluster <name>', '--queue-url <url>' not specified\n");
    expect(io.stdout).toEqual([]);
    const help = bufferIO();
    await main(['forwarder', 'manifest', '--help'], help);
    expect(help.stdout.join('')).toMatch(/--cluster <name>\s+EKS cluster name.*\(required\)/);
    expect(help.stdout.join('')).toMatch(/--queue-url <url>\s+.*\(required\)/);
  });

  it('names the invokable functions in the invoke help', async () => {
    const io = bufferIO();
    await main(['invoke', '--help'], io);
    expect(io.stdout.join('')).toContain(INVOKABLE_FUNCTIONS.join(' | '));
  });

  it('runs from the cached bundle through bin.mjs', () => {
    const out = execFileSync(process.execPath, [join(ROOT, 'cli', 'bin.mjs'), '--version'], { encoding: 'utf8' });
    expect(out).toBe(`${packageJson.version}\n`);
    const manifest = JSON.parse(readFileSync(join(ROOT, '.cache', 'cli', 'manifest.json'), 'utf8'));
    expect(Object.keys(manifest.inputs)).toContain('cli/program/commands.ts');
  });
});
