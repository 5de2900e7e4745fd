// The CLI fuzz run (docs/api.md, "Input limits"): every malformed input must end within 10 s, with a non-zero exit,
// no crash, no internal JavaScript error shown to the user, and each problem printed once.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bufferIO } from '../../cli/io';
import { main } from '../../cli/main';
import { INTERNAL_ERROR, runBounded } from './bounded';
import { BASE_DOCS, type Doc, invalidManifestFiles, mutatedDoc, toYaml } from './corpus';
import { FUZZ_RUNS, FUZZ_SEED } from './runs';

const cases = invalidManifestFiles();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'karpless-fuzz-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe(`karpless simulate on ${cases.length} malformed inputs`, () => {
  it('has at least 200 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(200);
  });

  it('refuses every one: no hang, no crash, no internal error, no exit 0, each problem once', async () => {
    const failures: string[] = [];
    for (const [i, c] of cases.entries()) {
      const file = join(dir, `case-${i}.yaml`);
      await writeFile(file, c.yaml);
      const io = bufferIO();
      const outcome = await runBounded(() => main(['simulate', '-f', file], io), 10_000);
      const stderr = io.stderr.join('');
      const lines = stderr.split('\n').filter((l) => l.trim() !== '');
      const problem =
        outcome.kind === 'timeout'
          ? 'hung for over 10 s'
          : outcome.kind === 'threw'
            ? `crashed: ${outcome.error}`
            : outcome.value === 0
              ? 'exited 0'
              : INTERNAL_ERROR.test(stderr + io.stdout.join(''))
                ? `showed an internal error: ${stderr.slice(0, 200)}`
                : new Set(lines).size !== lines.length
                  ? `printed a problem twice: ${stderr.slice(0, 200)}`
                  : !stderr.includes(file)
                    ? `did not name the file: ${stderr.slice(0, 200)}`
                    : undefined;
      if (problem) failures.push(`${c.name}: ${problem}`);
    }
    expect(failures).toEqual([]);
  }, 600_000);
});

describe('karpless simulate on randomly mutated clusters (valid or not)', () => {
  it('plans or refuses: no hang, no crash, no internal error, no NaN or Infinity in a report', async () => {
    const runs = Math.max(20, Math.floor(FUZZ_RUNS / 5));
    const rest = Object.values(BASE_DOCS).map((make) => make());
    const samples = fc.sample(mutatedDoc, { numRuns: runs, seed: FUZZ_SEED ?? 7 });
    const failures: string[] = [];
    for (const [i, doc] of samples.entries()) {
      const others = rest.filter((d: Doc) => d.kind !== doc.kind);
      const file = join(dir, `random-${i}.yaml`);
      await writeFile(file, toYaml([...others, doc]));
      const io = bufferIO();
      const outcome = await runBounded(() => main(['simulate', '-f', file, '-o', 'json'], io), 10_000);
      const stdout = io.stdout.join('');
      const problem =
        outcome.kind === 'timeout'
          ? 'hung for over 10 s'
          : outcome.kind === 'threw'
            ? `crashed: ${outcome.error}`
            : ![0, 2].includes(outcome.value)
              ? `exited ${outcome.value}: ${io.stderr.join('').slice(0, 200)}`
              : INTERNAL_ERROR.test(io.stderr.join('') + stdout)
                ? `showed an internal error: ${(io.stderr.join('') + stdout).slice(0, 300)}`
                : /NaN|Infinity/.test(stdout)
                  ? 'put NaN or Infinity in the report'
                  : undefined;
      if (problem) failures.push(`${JSON.stringify(doc).slice(0, 300)}: ${problem}`);
    }
    expect(failures).toEqual([]);
  }, 600_000);
});
