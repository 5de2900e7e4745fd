import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { toBlockYaml, type YamlValue } from './yaml-block';

/** Strings a plain scalar would turn into something else, or into invalid YAML, under YAML 1.1 or 1.2. */
const TRICKY = [
  '',
  ' ',
  'yes',
  'No',
  'ON',
  'off',
  'y',
  'n',
  'true',
  'False',
  'null',
  'Null',
  '~',
  '123',
  '0x1F',
  '0o17',
  '012',
  '1e3',
  '.5',
  '1_000',
  '190:20:30',
  '2001-12-14',
  '.inf',
  '-.Inf',
  '.NaN',
  '5%',
  '10.100.0.10',
  '-',
  '--node-labels=a=b,c=d',
  '- item',
  'a: b',
  'key:',
  'a #comment',
  '#comment',
  '&anchor',
  '*alias',
  '!tag',
  '|',
  '>',
  '@at',
  '`tick',
  '%percent',
  '"quoted"',
  "'single'",
  '[a, b]',
  '{a: b}',
  'line\nbreak',
  'tab\there',
  'trailing ',
  ' leading',
  'ünïcödé',
  'dedicated=web:NoSchedule',
  'https://ABCDEF.gr7.us-east-1.eks.amazonaws.com',
  'memory.available',
];

function roundTrips(doc: { [key: string]: YamlValue }): void {
  const text = toBlockYaml(doc);
  expect(parse(text, { version: '1.2' }), text).toEqual(doc);
  expect(parse(text, { version: '1.1' }), text).toEqual(doc);
}

describe('toBlockYaml', () => {
  it('writes every tricky string so that YAML 1.1 and 1.2 both read back the same string, as value and as key', () => {
    for (const s of TRICKY) {
      roundTrips({ value: s });
      roundTrips({ [s]: 'v' });
      roundTrips({ list: [s, s] });
    }
  });

  it('writes plain what needs no quotes, and quotes the rest', () => {
    expect(toBlockYaml({ name: 'prod-a', endpoint: 'https://x.eks.amazonaws.com', on: 'yes', ip: '10.0.0.1' })).toBe(
      'name: prod-a\nendpoint: https://x.eks.amazonaws.com\n"on": "yes"\nip: "10.0.0.1"\n',
    );
  });

  it('nests objects and arrays as blocks, writes empty ones inline, and keeps numbers and booleans typed', () => {
    const doc = {
      apiVersion: 'node.eks.aws/v1alpha1',
      spec: {
        kubelet: { config: { maxPods: 58, cpuCFSQuota: false, evictionHard: { 'memory.available': '5%' } }, flags: [] },
        nested: [[1, 2], [{ a: 'b', c: [] }], {}],
        ratio: -0.25,
      },
    };
    roundTrips(doc);
    expect(toBlockYaml(doc)).toBe(
      [
        'apiVersion: node.eks.aws/v1alpha1',
        'spec:',
        '  kubelet:',
        '    config:',
        '      maxPods: 58',
        '      cpuCFSQuota: false',
        '      evictionHard:',
        '        memory.available: "5%"',
        '    flags: []',
        '  nested:',
        '    -',
        '      - 1',
        '      - 2',
        '    -',
        '      -',
        '        a: b',
        '        c: []',
        '    - {}',
        '  ratio: -0.25',
        '',
      ].join('\n'),
    );
  });

  it('refuses numbers YAML cannot carry', () => {
    expect(() => toBlockYaml({ n: Number.NaN })).toThrow('cannot write NaN as YAML');
  });
});
