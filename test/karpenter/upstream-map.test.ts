// test/karpenter/UPSTREAM.md maps each upstream title to the test that translates it: every mapped test must exist,
// under that name, in the file the map names (a renamed or deleted test breaks the map, not silently).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testNames } from './upstream-map';

const ROOT = join(import.meta.dirname, '../..');
const MAP = readFileSync(join(import.meta.dirname, 'UPSTREAM.md'), 'utf8');

/** The map's rows: upstream title, status, file and test name (pipes unescaped). */
function rows(): { title: string; status: string; file: string; test: string }[] {
  return MAP.split('\n')
    .filter(
      (l) => l.startsWith('| ') && !l.startsWith('| Upstream') && !l.startsWith('| File') && !l.startsWith('| ---'),
    )
    .map((l) =>
      l
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((c) => c.replace(/\\\|/g, '|').trim()),
    )
    .filter((c) => c.length === 4)
    .map(([title = '', status = '', file = '', test = '']) => ({ title, status, file: file.replace(/`/g, ''), test }));
}

describe('test/karpenter/UPSTREAM.md', () => {
  const mapped = rows().filter((r) => r.status === 'translated');

  it('maps some titles, each with a file and a test name', () => {
    expect(mapped.length).toBeGreaterThan(0);
    for (const r of mapped) expect(r.file && r.test, r.title).toBeTruthy();
  });

  it('names only tests that exist in the named files', () => {
    const names = new Map<string, string[]>();
    const missing = mapped.filter((r) => {
      let list = names.get(r.file);
      if (!list) {
        list = testNames(readFileSync(join(ROOT, r.file), 'utf8'));
        names.set(r.file, list);
      }
      return !list.includes(r.test);
    });
    expect(missing.map((r) => `${r.file}: ${r.test}`)).toEqual([]);
  });

  it('gives every row a known status', () => {
    for (const r of rows()) expect(['translated', 'not translated'], r.title).toContain(r.status);
  });
});
