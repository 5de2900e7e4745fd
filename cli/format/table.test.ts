import { describe, expect, it } from 'vitest';
import { formatPrice, renderTable, roundPrice } from './table';

describe('renderTable', () => {
  it('pads columns to the widest cell and right-aligns numbers', () => {
    const text = renderTable(
      ['NAME', { header: 'N', align: 'right' }],
      [
        ['a', 1],
        ['longer', 123],
      ],
    );
    expect(text.split('\n')).toEqual(['NAME      N', 'a         1', 'longer  123']);
  });

  it('formats and rounds prices', () => {
    expect(formatPrice(0.0351)).toBe('$0.0351');
    expect(roundPrice(0.1 + 0.2)).toBe(0.3);
  });
});
