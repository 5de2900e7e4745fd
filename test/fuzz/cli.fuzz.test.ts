// The CLI fuzz run (docs/api.md, "Input limits"): every malformed input must end within 10 s, with a non-zero exit,
// no crash, no internal JavaScript error shown to the user, and each problem printed once.
import { execFileSync } from 'node:child_process';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bufferIO } from '../../cli/io';
import { main } from '../../cli/main';
import { INTERNAL_ERROR, runBounded } from './bounded';
import { BASE_DOCS, type Doc, invalidManifestFiles, mutatedDoc, toYaml } from './corpus';
import { type InputCase, inputCases, workCases } from './input-families';
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

/** Node's error codes, which say nothing to a user about what the file should have been. */
const RAW_ERRNO = /\b(ENOENT|EISDIR|ENOTDIR|EACCES)\b/;

/** What is wrong with one refusal: it must end in time, exit non-zero, and say one line naming the file. */
async function refusalProblem(c: InputCase, stdin = ''): Promise<string | undefined> {
  const io = bufferIO(stdin);
  const outcome = await runBounded(() => main(c.argv, io), 10_000);
  const stderr = io.stderr.join('');
  const lines = stderr.split('\n').filter((l) => l.trim() !== '');
  if (outcome.kind === 'timeout') return 'hung for over 10 s';
  if (outcome.kind === 'threw') return `crashed: ${outcome.error}`;
  if (outcome.value === 0) return 'exited 0';
  if (INTERNAL_ERROR.test(stderr)) return `showed an internal error: ${stderr.slice(0, 200)}`;
  if (RAW_ERRNO.test(stderr)) return `showed Node's raw error: ${stderr.slice(0, 200)}`;
  if (lines.length !== 1) return `printed ${lines.length} lines: ${stderr.slice(0, 300)}`;
  if (!lines[0]?.includes(c.names)) return `did not name ${c.names}: ${stderr.slice(0, 200)}`;
  return undefined;
}

describe('karpless on bad input files, per family', () => {
  let cases: InputCase[] = [];
  beforeAll(async () => {
    cases = await inputCases(dir);
  });

  it('refuses every one with one line naming the file and a non-zero exit', async () => {
    const counts = new Map<string, number>();
    for (const c of cases) counts.set(c.family, (counts.get(c.family) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual({
      'explain --store': 9,
      '--catalog': 9,
      '--scenario': 9,
      'empty input': 9,
      'merge keys': 6,
    });
    const failures: string[] = [];
    for (const c of cases) {
      const problem = await refusalProblem(c);
      if (problem) failures.push(`${c.family} ${c.name}: ${problem}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);
});

describe('karpless on input sized to cost work', () => {
  it("refuses an alias bomb and a file over the full parser's cap within the bound", async () => {
    const failures: string[] = [];
    for (const c of await workCases(dir)) {
      const problem = await refusalProblem(c);
      if (problem) failures.push(`${c.name}: ${problem}`);
    }
    expect(failures).toEqual([]);
  }, 60_000);

  it('refuses standard input past the per-file cap', async () => {
    const c = { family: 'stdin', name: 'over the cap', argv: ['simulate', '-f', '-'], names: '<stdin>' };
    expect(await refusalProblem(c, 'a'.repeat(64 * 2 ** 20 + 1))).toBeUndefined();
  });

  it('refuses endless standard input from the real binary at the cap, within the bound', () => {
    // `yes` never ends: before the cap, the CLI read it until the heap ran out.
    const script = 'yes "a: b" | node cli/bin.mjs simulate -f - ; echo "exit=$?"';
    const out = execFileSync('bash', ['-c', script], { encoding: 'utf8', timeout: 20_000, stdio: 'pipe' });
    expect(out.trim()).toBe('exit=2');
  }, 30_000);
});

describe('karpless on a named pipe with no writer', () => {
  const pipeCases = (fifo: string): InputCase[] => [
    { family: 'fifo', name: 'simulate -f', argv: ['simulate', '-f', fifo], names: fifo },
    { family: 'fifo', name: 'migrate', argv: ['migrate', fifo], names: fifo },
    { family: 'fifo', name: '--scenario', argv: ['simulate', '--scenario', fifo], names: fifo },
    { family: 'fifo', name: '--catalog', argv: ['catalog', '--catalog', fifo], names: fifo },
    { family: 'fifo', name: 'explain --store', argv: ['explain', 'x', '--store', fifo], names: fifo },
  ];

  it('says it waits for a writer, naming the pipe, then reads what the writer sends', async () => {
    const failures: string[] = [];
    for (const [i, c] of pipeCases(join(dir, 'pipe')).entries()) {
      const fifo = join(dir, `pipe-${i}`);
      execFileSync('mkfifo', [fifo]);
      const argv = c.argv.map((a) => (a === c.names ? fifo : a));
      const io = bufferIO();
      const run = runBounded(() => main(argv, io), 10_000);
      const deadline = Date.now() + 8_000;
      while (!io.stderr.join('').includes(`${fifo}: a named pipe with no writer yet`) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const waited = io.stderr.join('');
      // The writer arrives and sends nothing: the reader ends and refuses the empty input.
      const writer = await open(fifo, 'w');
      await writer.close();
      const outcome = await run;
      if (!waited.includes(fifo)) failures.push(`${c.name}: no line naming the pipe while waiting`);
      else if (outcome.kind !== 'value' || outcome.value === 0) failures.push(`${c.name}: ${JSON.stringify(outcome)}`);
    }
    expect(failures).toEqual([]);
  }, 60_000);
});
