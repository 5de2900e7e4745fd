import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validationProblems } from '../../testkit/validation';
import { loadCatalog } from './load';

const dir = mkdtempSync(join(tmpdir(), 'karpless-catalog-'));
const embedded = loadCatalog();

function write(name: string, data: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof data === 'string' ? data : JSON.stringify(data));
  return path;
}
const problems = (path: string): string[] => validationProblems(() => loadCatalog(path));
const small = () => ({ ...embedded, types: embedded.types.slice(0, 5).map((t) => ({ ...t })) });

describe('loadCatalog', () => {
  it('returns the embedded snapshot, the same object each time', () => {
    expect(loadCatalog()).toBe(embedded);
    expect(embedded.region).toBe('us-east-1');
  });

  it('reads a valid catalog file', () => {
    const path = write('ok.json', small());
    const catalog = loadCatalog(path);
    expect(catalog.types).toHaveLength(5);
    expect(catalog.zones).toHaveLength(6);
  });

  it('names the file and the field path of a bad value', () => {
    const bad = small();
    bad.types[3] = { ...bad.types[3], vcpu: 0 } as (typeof bad.types)[number];
    const path = write('catalog.json', bad);
    expect(problems(path)).toEqual([`${path}: types[3].vcpu: must be a positive number`]);
  });

  it('reports several problems at once, with nested paths', () => {
    const bad = small() as unknown as { types: Record<string, unknown>[]; zones: unknown[] };
    bad.types[0] = { ...bad.types[0], arch: 'sparc', gpu: { count: 1, name: 't4', manufacturer: 'nvidia' } };
    bad.types[1] = { ...bad.types[1], spotPrice: { 'mars-1a': 0.1 }, zones: ['us-east-1a', 'nowhere'] };
    bad.types[2] = { ...bad.types[2], name: bad.types[0]?.name };
    const path = write('multi.json', bad);
    expect(problems(path)).toEqual([
      `${path}: types[0].arch: must be one of amd64, arm64`,
      `${path}: types[0].gpu.memoryMiB: must be a non-negative number`,
      `${path}: types[1].zones[1]: "nowhere" is not a catalog zone`,
      `${path}: types[1].spotPrice.mars-1a: is not a catalog zone`,
      `${path}: types[2].name: duplicate instance type "${String(bad.types[0]?.name)}"`,
    ]);
  });

  it('rejects a catalog without zones or types', () => {
    const path = write('empty.json', { region: 'us-east-1', zones: [], types: [] });
    expect(problems(path)).toEqual([
      `${path}: zones: must be a non-empty list`,
      `${path}: types: must be a non-empty list`,
    ]);
    expect(problems(write('array.json', []))).toEqual([
      `${join(dir, 'array.json')}: must be a JSON object with region, zones and types`,
    ]);
  });

  it('reports unreadable files and broken JSON as validation errors', () => {
    expect(problems(join(dir, 'missing.json'))[0]).toMatch(/missing\.json: cannot read the catalog file \(ENOENT\)/);
    expect(problems(write('broken.json', '{"region":'))[0]).toMatch(/broken\.json: not valid JSON/);
  });

  it('accepts a refreshed snapshot written back to disk', () => {
    const path = write('roundtrip.json', readFileSync(new URL('./data/us-east-1.json', import.meta.url), 'utf8'));
    expect(loadCatalog(path).types).toHaveLength(embedded.types.length);
  });
});
