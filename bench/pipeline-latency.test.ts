import { describe, expect, it } from 'vitest';
import { quantiles } from './pipeline-latency';

describe('quantiles', () => {
  it('takes the nearest-rank quantile', () => {
    const xs = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(quantiles(xs)).toEqual({ p50: 50, p90: 90, p99: 99, max: 100 });
    expect(quantiles([7])).toEqual({ p50: 7, p90: 7, p99: 7, max: 7 });
  });
});
