import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatDuration,
  formatResource,
  parseDuration,
  parseQuantity,
  parseResource,
  QuantityError,
  quantityByGrammar,
} from './quantity';

/** What reading a quantity gives: its value, or the error's message. */
function outcome(read: () => number): number | string {
  try {
    return read();
  } catch (e) {
    return (e as Error).message;
  }
}

describe('the plain-quantity path', () => {
  it('reads every text as the grammar does', () => {
    const pieces = ['0', '1', '5', '9', '00', '123', '999999999999999', '9999999999999999', '.', '+', '-', 'e', 'E'];
    const suffixes = [
      '',
      'm',
      'k',
      'K',
      'Ki',
      'ki',
      'Mi',
      'M',
      'Gi',
      'G',
      'Ti',
      'Pi',
      'P',
      'Ei',
      'E',
      'n',
      'u',
      'i',
      'x',
    ];
    const text = fc
      .tuple(fc.array(fc.constantFrom(...pieces), { minLength: 0, maxLength: 4 }), fc.constantFrom(...suffixes))
      .map(([p, suffix]) => `${p.join('')}${suffix}`);
    fc.assert(
      fc.property(text, (t) => {
        expect(outcome(() => parseQuantity(t))).toEqual(outcome(() => quantityByGrammar(t)));
      }),
      { numRuns: 5000 },
    );
  });

  it.each(['500m', '2', '512Mi', '1Gi', '4096Mi', '007', '1E', '999999999999999Ei', '0'])(
    'reads %s as the grammar does',
    (t) => {
      expect(outcome(() => parseQuantity(t))).toEqual(outcome(() => quantityByGrammar(t)));
    },
  );
});

describe('quantities', () => {
  it.each([
    ['500m', 0.5],
    ['2', 2],
    ['1.5', 1.5],
    ['1Ki', 1024],
    ['512Mi', 512 * 2 ** 20],
    ['1Gi', 2 ** 30],
    ['1G', 1e9],
    ['1k', 1000],
    ['1e3', 1000],
    ['100n', 100e-9],
    [4, 4],
  ])('parses %s', (input, value) => {
    expect(parseQuantity(input)).toBeCloseTo(value, 12);
  });

  // Kubernetes' grammar allows no spaces anywhere: the API server refuses "1 " and " 3 ".
  it.each(['lots', '1Gb', '1 Gi', '', '--1', 'Gi', '1 ', ' 3 ', '1e', '1.2.3', '0x10', 'Infinity', 'NaN'])(
    'rejects %j',
    (input) => {
      expect(() => parseQuantity(input)).toThrow(QuantityError);
    },
  );

  it.each(['1e309', '9Ei', '1e19', '-1e19'])('rejects %j as out of range (beyond int64 in base units)', (input) => {
    expect(() => parseQuantity(input)).toThrow(/out of range/);
  });

  it('accepts the largest quantities an int64 holds', () => {
    expect(parseQuantity('7Ei')).toBe(7 * 2 ** 60);
    expect(parseQuantity('1e18')).toBe(1e18);
  });

  it('rejects non-finite numbers', () => {
    expect(() => parseQuantity(Number.POSITIVE_INFINITY)).toThrow(QuantityError);
  });

  it('turns cpu into millicores and rounds other resources up to whole units', () => {
    expect(parseResource('cpu', '500m')).toBe(500);
    expect(parseResource('cpu', 0.1)).toBe(100);
    expect(parseResource('cpu', '2')).toBe(2000);
    expect(parseResource('memory', '1.5Ki')).toBe(1536);
    expect(parseResource('memory', '1m')).toBe(1);
    expect(parseResource('nvidia.com/gpu', 1)).toBe(1);
  });

  it('formats engine units back to canonical quantities', () => {
    expect(formatResource('cpu', 2000)).toBe('2');
    expect(formatResource('cpu', 1500)).toBe('1500m');
    expect(formatResource('memory', 2 ** 30)).toBe('1Gi');
    expect(formatResource('memory', 6903 * 2 ** 20)).toBe('6903Mi');
    expect(formatResource('ephemeral-storage', 17 * 2 ** 30)).toBe('17Gi');
    expect(formatResource('pods', 29)).toBe('29');
    expect(formatBytes(0)).toBe('0');
    expect(formatBytes(1536)).toBe('1536');
    expect(formatBytes(3 * 2 ** 20 + 512 * 2 ** 10)).toBe('3584Ki');
  });

  it('round-trips resources through format and parse', () => {
    for (const [name, value] of [
      ['cpu', 1930],
      ['memory', 7_238_516_736],
      ['pods', 110],
    ] as const) {
      expect(parseResource(name, formatResource(name, value))).toBe(value);
    }
  });
});

describe('durations', () => {
  it.each([
    ['720h', 720 * 3.6e6],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
    ['300ms', 300],
    ['0', 0],
    ['0s', 0],
  ])('parses %s', (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  it('reads Never as forever', () => {
    expect(parseDuration('Never')).toBe(Number.POSITIVE_INFINITY);
  });

  it.each(['10d', '5 m', 'soon', '1h30'])('rejects %j', (input) => {
    expect(() => parseDuration(input)).toThrow(QuantityError);
  });

  it('formats milliseconds as compact Go durations', () => {
    expect(formatDuration(90_000)).toBe('1m30s');
    expect(formatDuration(3.6e6)).toBe('1h');
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(Number.POSITIVE_INFINITY)).toBe('Never');
    expect(formatDuration(720 * 3.6e6)).toBe('720h');
  });
});
