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

  /** What is left of the budget on the clock, ms: Infinity without a deadline, 0 once it passed. For work that
   * cannot read the clock as it goes (a HiGHS solve), so it can be given a limit of its own or skipped. */
  remainingMs(): number {
    if (this.at === undefined) return Number.POSITIVE_INFINITY;
    if (this.reached) return 0;
    const left = this.at - this.now();
    if (left <= 0) this.reached = true;
    return Math.max(0, left);
  }

  /** The deadline's clock, to measure what a piece of work costs on it. */
  clock(): number {
    return this.now();
  }

  /** Whether the budget is spent. Once true it stays true, so a clock that steps back cannot resume the solve. */
  passed(): boolean {
    if (this.reached) return true;
    if (this.at === undefined) return false;
    if (this.now() >= this.at) this.reached = true;
    return this.reached;
  }
}

/** Never passes: for the callers (fills during setup, tests) that have no budget. Marked pure so that bundles reaching
 * this module through a barrel without solving (termination, GC) leave it out. */
export const NO_DEADLINE = /* @__PURE__ */ new Deadline(() => 0, undefined);
