// No code, comment or doc names a numbered work period (docs/architecture.md says what the docs are: the project's
// truth, not its diary). The checker's inputs below are built at run time, so this file names no period either.
import { describe, expect, it } from 'vitest';
import { trackedFiles } from './tracked';
import { periodMentions } from './work-periods';

/** Text the pattern matches that is not a work period, and why. */
const NOT_A_PERIOD: readonly { path: string; text: string; why: string }[] = [
  { path: 'bench/pipeline-latency.ts', text: ['rounds', '4'].join(' '), why: "the latency benchmark's rounds flag" },
  { path: 'bench/run.test.ts', text: ['round', '8'].join(' '), why: "the latency benchmark's error message" },
];

const EXTENSIONS = ['ts', 'mjs', 'cjs', 'md', 'json', 'yaml', 'yml'];

describe('the repository', () => {
  it('names no numbered work period in code, comments or docs', () => {
    const found = trackedFiles(EXTENSIONS).flatMap((f) =>
      periodMentions(f.text)
        .filter((m) => !NOT_A_PERIOD.some((a) => a.path === f.path && a.text === m.text))
        .map((m) => `${f.path}:${m.line}: ${m.text}`),
    );
    expect(found).toEqual([]);
  });

  it('keeps no exception that no longer matches', () => {
    const files = new Map(trackedFiles(EXTENSIONS).map((f) => [f.path, f.text]));
    const stale = NOT_A_PERIOD.filter((a) => !periodMentions(files.get(a.path) ?? '').some((m) => m.text === a.text));
    expect(stale).toEqual([]);
  });
});

describe('the checker', () => {
  const say = (...words: string[]) => words.join(' ');
  const texts = (s: string) => periodMentions(s).map((m) => m.text.toLowerCase());

  it('finds periods by number, in ranges, hyphenated and in parentheses', () => {
    expect(texts(`// measured in ${say('session', '8')}`)).toEqual([say('session', '8')]);
    expect(texts(`at ${say('Stop', '27')}, and ${say('sessions', '5–9')}`)).toEqual([
      say('stop', '2'),
      say('sessions', '5'),
    ]);
    expect(texts(`the ${['stop', '27'].join('-')} bundle`)).toEqual([['stop', '2'].join('-')]);
    expect(texts(`# Notes (${'sess'}ion 10)`)).toEqual([`(${'sess'}ion`]);
    expect(texts(`${say('round', '2')} of review`)).toEqual([say('round', '2')]);
  });

  it('gives the line of each mention', () => {
    expect(periodMentions(`a\nb ${say('session', '3')}\nc`)).toEqual([{ line: 2, text: say('session', '3') }]);
  });

  it('leaves ordinary words alone', () => {
    for (const ok of ['the solve stops when the deadline passes', 'rounds up to whole units', 'an AWS role session']) {
      expect(periodMentions(ok)).toEqual([]);
    }
  });
});
