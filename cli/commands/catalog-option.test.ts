import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../shared/catalog';
import { ValidationError } from '../../shared/errors';
import { addCatalogOption } from '../program/options';
import { resolveCatalog } from './catalog-option';

describe('--catalog option', () => {
  it('adds --catalog <file> to a command', () => {
    const cmd = addCatalogOption(new Command('x').exitOverride());
    cmd.parse(['--catalog', 'c.json'], { from: 'user' });
    expect(cmd.opts()).toEqual({ catalog: 'c.json' });
  });

  it('resolves the embedded snapshot without a file, and the file when given', async () => {
    expect(await resolveCatalog({})).toBe(loadCatalog());
    const dir = mkdtempSync(join(tmpdir(), 'karpless-opt-'));
    const path = join(dir, 'c.json');
    const embedded = loadCatalog();
    writeFileSync(path, JSON.stringify({ ...embedded, types: embedded.types.slice(0, 2) }));
    expect((await resolveCatalog({ catalog: path })).types).toHaveLength(2);
  });

  it('throws a ValidationError naming the file for a bad catalog', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'karpless-opt-'));
    const path = join(dir, 'bad.json');
    writeFileSync(path, JSON.stringify({ region: 'r', zones: [{ name: 'a', id: 'b' }], types: [{ name: 'x.large' }] }));
    await expect(resolveCatalog({ catalog: path })).rejects.toThrow(ValidationError);
    await expect(resolveCatalog({ catalog: path })).rejects.toThrow(
      `${path}: types[0].family: must be a non-empty string`,
    );
  });
});
