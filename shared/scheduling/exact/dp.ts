// Small pattern programs solved outright by dynamic programming over what is left to cover (docs/architecture.md,
// "Exact small packings"): one Deployment's replicas, or a few kinds of pods, have few enough residual states that
// this is exact and far cheaper than starting HiGHS's branch and bound. Pool limits are not modelled here: the
// caller checks the result against them and falls back to the integer program when they bind.
import type { Kind, Pattern } from './patterns';

/** States between two looks at the clock: a few hundred microseconds of work at most. */
const CLOCK_STRIDE = 4096;

/**
 * The cheapest copies of patterns covering every kind, or undefined when states × patterns exceeds `maxWork` or
 * `expired` says the solve's time is up. Work within `maxWork` still takes up to a few hundred milliseconds when there
 * are many kinds, so the clock is read as it goes (docs/performance.md, "A deadline that holds").
 */
export function coverByDp(
  patterns: readonly Pattern[],
  kinds: readonly Kind[],
  maxWork: number,
  expired: () => boolean = () => false,
): number[] | undefined {
  const strides: number[] = [];
  let states = 1;
  for (const k of kinds) {
    strides.push(states);
    states *= k.count + 1;
    if (states * patterns.length > maxWork) return undefined;
  }
  const cost = new Float64Array(states).fill(Number.POSITIVE_INFINITY);
  const choice = new Int32Array(states).fill(-1);
  cost[0] = 0;
  const left = new Int32Array(kinds.length);
  for (let s = 1; s < states; s++) {
    if (s % CLOCK_STRIDE === 0 && expired()) return undefined;
    let rest = s;
    for (let k = kinds.length - 1; k >= 0; k--) {
      left[k] = Math.floor(rest / (strides[k] as number));
      rest -= (left[k] as number) * (strides[k] as number);
    }
    let best = Number.POSITIVE_INFINITY;
    let pick = -1;
    for (let j = 0; j < patterns.length; j++) {
      const p = patterns[j] as Pattern;
      let next = 0;
      let useful = false;
      for (let k = 0; k < kinds.length; k++) {
        const l = left[k] as number;
        const c = p.counts[k] as number;
        if (c > 0 && l > 0) useful = true;
        next += Math.max(0, l - c) * (strides[k] as number);
      }
      if (!useful) continue;
      const v = p.price + (cost[next] as number);
      if (v < best) {
        best = v;
        pick = j;
      }
    }
    cost[s] = best;
    choice[s] = pick;
  }
  const copies = patterns.map(() => 0);
  let s = states - 1;
  while (s > 0) {
    const j = choice[s] as number;
    if (j < 0) return undefined;
    copies[j] = (copies[j] as number) + 1;
    const p = patterns[j] as Pattern;
    let rest = s;
    let next = 0;
    for (let k = kinds.length - 1; k >= 0; k--) {
      const l = Math.floor(rest / (strides[k] as number));
      rest -= l * (strides[k] as number);
      next += Math.max(0, l - (p.counts[k] as number)) * (strides[k] as number);
    }
    s = next;
  }
  return copies;
}
