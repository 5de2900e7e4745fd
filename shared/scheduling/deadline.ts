// The solve's time budget. The solver asks `passed()` before every queue entry and inside the loops one entry can
// spend long in (filling a new claim, scanning planned claims), so it stops within a few milliseconds of the budget
// whatever the batch looks like (docs/performance.md, A deadline that holds). The clock is read on every call: a
// check is a few tens of nanoseconds, far below any work it guards, and counting entries instead would let one slow
// entry run far past the budget.

export class Deadline {
  private reached = false;

  /** `at` is on the `now` clock; undefined means no deadline. */
  constructor(
    private readonly now: () => number,
    private readonly at: number | undefined,
  ) {}

  /** Whether the budget is spent. Once true it stays true, so a clock that steps back cannot resume the solve. */
  passed(): boolean {
    if (this.reached) return true;
    if (this.at === undefined) return false;
    if (this.now() >= this.at) this.reached = true;
    return this.reached;
  }
}

/** Never passes: for the callers (fills during setup, tests) that have no budget. */
export const NO_DEADLINE = new Deadline(() => 0, undefined);
