import { describe, expect, it, vi } from 'vitest';

// Order of events: the V8 flag must be set before HiGHS's WebAssembly compiles, as V8 reads it at compile time.
const events: string[] = [];

vi.mock('node:v8', () => ({
  setFlagsFromString: (flags: string) => events.push(`v8 ${flags}`),
}));
vi.mock('highs', () => ({
  default: () => {
    events.push('highs compiles');
    return Promise.resolve({ solve: () => ({ Status: 'Optimal', ObjectiveValue: 0, Rows: [], Columns: {} }) });
  },
}));

describe('loadLpSolver', () => {
  it('keeps HiGHS on the baseline WebAssembly compiler, set before it compiles and only once', async () => {
    const { loadLpSolver } = await import('./lp');
    await loadLpSolver();
    await loadLpSolver();
    expect(events).toEqual(['v8 --liftoff-only', 'highs compiles']);
  });
});
