import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { readBlockYaml } from './yaml-block';

/** What `yaml` reads, as parseYaml calls it; undefined when any document has an error. */
function yamlValues(text: string): unknown[] | undefined {
  const docs = parseAllDocuments(text, { merge: true, uniqueKeys: true });
  if (!Array.isArray(docs)) return [];
  if (docs.some((d) => d.errors.length > 0)) return undefined;
  return docs.map((d) => d.toJS({ maxAliasCount: 1000 }));
}

/** Where the block reader answers, `yaml` answers the same; it may give up on anything. */
let answered = 0;
function agrees(text: string): void {
  const block = readBlockYaml(text, 100);
  if (block === undefined) return;
  answered++;
  expect(yamlValues(text), text).toStrictEqual(block);
}

const ANSWERED = [
  '',
  '# only a comment\n',
  'a: 1\n---\n',
  '---\n',
  '# c\n---\na: 1\n--- # next\nb: 2\n---\n# only\n',
  'a:\n- 1\n- 2\nb: x\n',
  "a:\n  - x: 1\n    y: [] # c\n  - - nested\n    - -3\n  -\n  - {}\nb: \"q\\\"u\\\\o\" # c\nc: 'it''s'\n",
  'n: ~\nb: True\no: 0o17\nh: 0x1F\nf: 1.\ne: 1e3\ni: .inf\nm: -.Inf\nnan: .NaN\ns: 1_000\nz: -0\nt: -x\nu: a#b\nv: b]c,d\n',
  'metadata:\n  name: web\n  labels:\n    app.kubernetes.io/name: web\nspec:\n  containers:\n  - name: app\n    image: nginx:1.25\n    resources:\n      requests:\n        cpu: 500m\n',
];

const GIVEN_UP = [
  'a: &x 1\nb: *x\n',
  'a: !!str 1\n',
  'a: |\n  text\n',
  'a: [1, 2]\n',
  'a:\n  b: 1\n   c: 2\n',
  'a: b: c\n',
  'a: 1\na: 2\n',
  '"a": 1\n',
  '<<: {}\n',
  'a: "x"#c\n',
  'a:\n\tb: 1\n',
  'a: 1\r\n',
  '%YAML 1.2\n---\na: 1\n',
  'a: 1\n...\n',
  'a: plain\n  continued\n',
  'a: -\n',
  'just a scalar\n',
];

describe('readBlockYaml', () => {
  it('reads plain block YAML as yaml does', () => {
    for (const text of ANSWERED) {
      expect(readBlockYaml(text, 100), text).toBeDefined();
      agrees(text);
    }
  });

  it('gives up on what it does not read', () => {
    for (const text of GIVEN_UP) expect(readBlockYaml(text, 100), text).toBeUndefined();
  });

  it('gives up on nesting deeper than the limit, and on a stack overflow', () => {
    const deep = (n: number) => Array.from({ length: n }, (_, i) => `${' '.repeat(i)}k:`).join('\n');
    expect(readBlockYaml(deep(5), 10)).toBeDefined();
    expect(readBlockYaml(deep(20), 10)).toBeUndefined();
    // Exactly at the limit it answers; one level more, an empty map counted, it leaves the text to `yaml`.
    expect(readBlockYaml(deep(10), 10)).toBeDefined();
    expect(readBlockYaml(deep(11), 10)).toBeUndefined();
    expect(readBlockYaml(`${deep(10)} {}`, 10)).toBeUndefined();
    expect(readBlockYaml(`${deep(9)}\n${' '.repeat(9)}- []`, 10)).toBeUndefined();
    expect(readBlockYaml(`${deep(9)}\n${' '.repeat(9)}- x`, 10)).toBeDefined();
    expect(readBlockYaml(`${'- '.repeat(100_000)}x`, 1_000_000)).toBeUndefined();
  });

  it('agrees with yaml on what yaml.stringify writes', () => {
    const scalar = fc.oneof(
      fc.string(),
      fc.constantFrom('null', '~', 'true', 'False', '0o7', '0x1f', '-1', '+1', '1.5', '.5', '1e5', '.inf', '.nan'),
      fc.integer(),
      fc.double({ noNaN: true }),
      fc.boolean(),
      fc.constant(null),
    );
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, scalar, tie('map'), tie('list')),
      map: fc.dictionary(fc.string({ minLength: 1 }), tie('node'), { maxKeys: 4 }),
      list: fc.array(tie('node'), { maxLength: 4 }),
    })).map;
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 3 }), fc.boolean(), (docs, compact) => {
        const text = docs.map((d) => stringify(d, compact ? { indentSeq: false } : {})).join('---\n');
        agrees(text);
      }),
      { numRuns: 300, seed: 1 },
    );
  });

  it('agrees with yaml on lines put together from YAML tokens', () => {
    const token = fc.constantFrom(
      'a',
      'b',
      'a b',
      ':',
      ': ',
      '- ',
      '-',
      ' ',
      '  ',
      '#',
      ' #',
      '"',
      "'",
      '\\',
      '[',
      ']',
      '{',
      '}',
      '{}',
      '[]',
      ',',
      '1',
      '.',
      'e',
      'x',
      '?',
      '|',
      '>',
      '&',
      '*',
      '!',
      '%',
      '@',
      '---',
      '...',
      '~',
      'null',
      'true',
      '0x',
      '0o',
      '\u00a0',
      '\u3000',
    );
    const before = answered;
    const line = fc.tuple(fc.integer({ min: 0, max: 6 }), fc.array(token, { maxLength: 6 }));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), (lines) => {
        agrees(lines.map(([indent, tokens]) => ' '.repeat(indent) + tokens.join('')).join('\n'));
      }),
      { numRuns: 20_000, seed: 2 },
    );
    // The lines must reach the reader's answers often, or the comparison says little.
    expect(answered - before).toBeGreaterThan(1000);
  });
});
