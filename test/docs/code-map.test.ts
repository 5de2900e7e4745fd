// Every repository path docs/architecture.md names exists: the code map ("Layers") and the paths its prose cites are
// the project's map of itself, and a moved or removed file must move the map with it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRepositoryPath, mapPaths, type NamedPath, namedPaths } from './code-map';
import { ROOT, trackedPaths } from './tracked';

/** Tracked files and every folder above one. */
function existing(paths: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const p of paths) {
    const parts = p.split('/');
    for (let i = 1; i <= parts.length; i++) out.add(parts.slice(0, i).join('/'));
  }
  return out;
}

const missing = (named: readonly NamedPath[], tree: Set<string>): string[] =>
  named.filter((n) => !n.candidates.some((c) => tree.has(c))).map((n) => `${n.written} (${n.candidates.join(' or ')})`);

describe('docs/architecture.md', () => {
  const named = namedPaths(readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8'));

  it('reads the code map and the paths in its prose', () => {
    const resolved = new Set(named.flatMap((n) => n.candidates));
    for (const p of ['shared/sim/world.ts', 'functions/_wiring', 'functions/_wiring/env.ts', 'cli', 'test/contracts']) {
      expect(resolved).toContain(p);
    }
  });

  it('names only paths that exist', () => {
    expect(missing(named, existing(trackedPaths()))).toEqual([]);
  });
});

describe('the checker', () => {
  const tree = existing(['shared/sim/world.ts', 'shared/events/trust.ts', 'functions/_wiring/env.ts', 'events/sqs.ts']);

  it('takes only repository paths from code spans', () => {
    for (const p of ['shared/sim/world.ts', 'functions/_wiring/', 'cli/', '.cache/cli/']) {
      expect(isRepositoryPath(p)).toBe(true);
    }
    for (const s of ['karpenter.sh/v1', 'world.ts', 'kubectl get nodes', '@aws-sdk/*', 'functions/<name>/handler.ts']) {
      expect(isRepositoryPath(s)).toBe(false);
    }
  });

  it('resolves indented entries and bare names against the entry above them', () => {
    const block = [
      'shared/sim          the simulator; world.ts assembles it',
      'functions/          handlers:',
      '  _wiring/          env.ts (configuration)',
      'shared/events       validators (fixtures in events/)',
    ].join('\n');
    expect(missing(mapPaths(block), tree)).toEqual([]);
  });

  it('lists every path that does not exist, as written', () => {
    const doc = [
      'See `shared/sim/wrld.ts` and `functions/`.',
      '```',
      'functions/          handlers:',
      '  middleware/       sqs-consumer.ts',
      '```',
    ].join('\n');
    expect(missing(namedPaths(doc), tree)).toEqual([
      'shared/sim/wrld.ts (shared/sim/wrld.ts)',
      'middleware/ (functions/middleware)',
      'sqs-consumer.ts (functions/middleware/sqs-consumer.ts or sqs-consumer.ts)',
    ]);
  });
});
