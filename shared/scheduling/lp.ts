// The LP relaxation of the packing problem, solved with HiGHS (WebAssembly): choose fractional counts of each
// instance type so their allocatable covers the pods' total requests at least cost. Its optimum is a lower bound on
// any packing's cost, and its row duals are a price per unit of each resource, which the solver uses to value pods.
// HiGHS loads once, on the first loadLpSolver() (compiling its WebAssembly takes ~100 ms), which every async entry
// point that plans awaits first; `solve` and `lowerBound` then stay synchronous. Not at import: a Lambda whose
// invocation never plans (a drain step, a GC pass, a node event) should not pay for it in its cold start.
import { existsSync } from 'node:fs';
import highsLoader from 'highs';

type Highs = Awaited<ReturnType<typeof highsLoader>>;

/** Names highs.wasm explicitly (a file path), for layouts where it is not beside the code that loads it. */
export const HIGHS_WASM_ENV = 'KARPLESS_HIGHS_WASM';

/**
 * Where HiGHS finds its WebAssembly: the env override, else the loader's own directory. That directory is
 * node_modules/highs/build when running from the repository, and the bundle's directory in a Lambda, where the stack
 * copies highs.wasm next to index.mjs (stacks/bundling.ts). Checked up front so a missing file names its path.
 */
export function locateHighsFile(file: string, loaderDirectory = ''): string {
  const path = (file === 'highs.wasm' && process.env[HIGHS_WASM_ENV]) || `${loaderDirectory}${file}`;
  if (!path.includes('://') && !existsSync(path)) {
    throw new Error(`${file} not found at ${path}: ship it beside the bundle or set ${HIGHS_WASM_ENV}`);
  }
  return path;
}

let highs: Highs | undefined;
let loadError: string | undefined;
let loading: Promise<void> | undefined;

/** Whether HiGHS has loaded (a cold start can begin loading it early; see functions/_wiring/launch-ports.ts). */
export const lpSolverLoaded = (): boolean => highs !== undefined;

/** Loads HiGHS once; later calls return the same promise. A load failure is kept and reported by the solve. */
export function loadLpSolver(): Promise<void> {
  loading ??= keepWasmOnBaselineCompiler()
    .then(() =>
      highsLoader({
        // Emscripten passes the loader's directory as a second argument, which the published types leave out.
        locateFile: locateHighsFile as (file: string) => string,
      }),
    )
    .then(
      (h) => {
        highs = h;
        warmUp();
      },
      (e: unknown) => {
        loadError = e instanceof Error ? e.message : String(e);
      },
    );
  return loading;
}

/**
 * Keeps HiGHS on Liftoff, V8's baseline WebAssembly compiler. The LPs here are small (a few rows, tens of columns,
 * milliseconds each), so TurboFan's faster code never pays for itself: tiering HiGHS's hot functions up cost a cold
 * 5k solve 140–480 ms of CPU, on the core the solve's own compiles needed (docs/performance.md, "HiGHS on Liftoff").
 * Set before the module compiles, as V8 reads it then; HiGHS is the only WebAssembly these processes run.
 */
async function keepWasmOnBaselineCompiler(): Promise<void> {
  // node:v8 loads here, not at import: with the heap and profiler bindings it brings, it was ~2 % of the provisioner's
  // cold import, which an invocation that never plans should not pay (docs/performance.md, "Lambda bundles").
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--liftoff-only');
}

export interface LpColumn {
  price: number;
  /** Capacity per row, same order as `demand`. */
  supply: ArrayLike<number>;
  /** At most this many of it (a capacity reservation's room); unbounded when absent. */
  max?: number;
}

export interface LpResult {
  /** Optimal cost; Infinity when infeasible (some demanded resource no column supplies). */
  cost: number;
  /** Dual value per row (price per unit of that row's resource). */
  duals: number[];
  /** Fractional count per column. */
  counts: number[];
}

/** Rows whose demand is zero are dropped; rows no column supplies make the problem infeasible. `timeLimitMs` is
 * handed to HiGHS (`time_limit`, wall clock), which stops there: the solve then throws like any other non-optimal
 * end, and callers fall back (duals.ts prices by the cheapest type's rates). */
export function solveCoveringLp(
  demand: readonly number[],
  columns: readonly LpColumn[],
  timeLimitMs = Number.POSITIVE_INFINITY,
): LpResult {
  const rows = demand.map((d, i) => ({ d, i })).filter((r) => r.d > 0);
  const duals = new Array<number>(demand.length).fill(0);
  if (rows.length === 0) return { cost: 0, duals, counts: columns.map(() => 0) };
  for (const r of rows) {
    if (!columns.some((c) => (c.supply[r.i] ?? 0) > 0 && Number.isFinite(c.price))) {
      return { cost: Number.POSITIVE_INFINITY, duals, counts: columns.map(() => 0) };
    }
  }
  if (!highs) {
    throw new Error(`HiGHS LP solver unavailable: ${loadError ?? 'not loaded (await loadLpSolver() before planning)'}`);
  }
  const lines: string[] = ['Minimize', ' obj:'];
  const usable = usableColumns(
    columns,
    rows.map((r) => r.i),
  );
  pushTerms(
    lines,
    usable.map(({ c, j }) => [c.price, j]),
  );
  lines.push('Subject To');
  for (const r of rows) {
    lines.push(` r${r.i}:`);
    pushTerms(
      lines,
      usable.filter(({ c }) => (c.supply[r.i] ?? 0) > 0).map(({ c, j }) => [c.supply[r.i] as number, j]),
    );
    lines.push(` >= ${num(r.d)}`);
  }
  const bounded = usable.filter(({ c }) => c.max !== undefined && Number.isFinite(c.max));
  if (bounded.length > 0) {
    lines.push('Bounds');
    for (const { c, j } of bounded) lines.push(` 0 <= x${j} <= ${num(c.max as number)}`);
  }
  lines.push('End');
  const sol = highs.solve(
    lines.join('\n'),
    Number.isFinite(timeLimitMs) ? { time_limit: Math.max(0.001, timeLimitMs / 1000) } : {},
  );
  if (sol.Status !== 'Optimal') throw new Error(`LP relaxation ended with status ${sol.Status}`);
  sol.Rows.forEach((row, k) => {
    const r = rows[k];
    if (r) duals[r.i] = Math.max(0, (row as { Dual?: number }).Dual ?? 0);
  });
  const counts = columns.map((_, j) => {
    const col = sol.Columns[`x${j}`] as { Primal?: number } | undefined;
    return col?.Primal ?? 0;
  });
  return { cost: sol.ObjectiveValue, duals, counts };
}

/**
 * Solves a model in CPLEX LP format (integer programs too: see exact/mip.ts) with the loaded HiGHS. Throws when HiGHS
 * is not loaded; limit statuses come back in the solution.
 */
export function solveModel(model: string, options: Parameters<Highs['solve']>[1] = {}): ReturnType<Highs['solve']> {
  if (!highs) {
    throw new Error(`HiGHS LP solver unavailable: ${loadError ?? 'not loaded (await loadLpSolver() before planning)'}`);
  }
  return highs.solve(model, options);
}

/** Undominated columns per column set and rows: the duals' nudged solves (duals.ts centralDuals) ask again for the
 * same columns and rows with another demand, and the quadratic filter need not run again. */
const usableCache = new WeakMap<readonly LpColumn[], { rows: string; usable: { c: LpColumn; j: number }[] }>();

function usableColumns(columns: readonly LpColumn[], rows: number[]): { c: LpColumn; j: number }[] {
  const key = rows.join(',');
  const hit = usableCache.get(columns);
  if (hit && hit.rows === key) return hit.usable;
  const usable = undominated(
    columns.map((c, j) => ({ c, j })).filter(({ c }) => Number.isFinite(c.price) && c.price >= 0),
    rows,
  );
  usableCache.set(columns, { rows: key, usable });
  return usable;
}

/**
 * Drops columns another column beats per dollar on every row: in the relaxation they are never needed, and types of
 * one family in different sizes are often near-multiples of each other. Keeps the LP small and fast.
 */
function undominated<T extends { c: LpColumn }>(cols: T[], rows: number[]): T[] {
  const per = cols.map(({ c }) => rows.map((i) => (c.supply[i] ?? 0) / Math.max(c.price, 1e-12)));
  const keep: T[] = [];
  for (let a = 0; a < cols.length; a++) {
    const pa = per[a] as number[];
    let dominated = false;
    for (let b = 0; b < cols.length && !dominated; b++) {
      if (a === b) continue;
      const pb = per[b] as number[];
      let geq = true;
      let strict = false;
      for (let k = 0; k < pa.length; k++) {
        const x = pa[k] as number;
        const y = pb[k] as number;
        if (y < x * (1 - 1e-12)) {
          geq = false;
          break;
        }
        if (y > x * (1 + 1e-12)) strict = true;
      }
      // Equal columns: keep the first only. A column there is only so much of beats nothing: past its bound, the
      // column it "beats" is still needed.
      if (geq && (strict || b < a) && (cols[b] as T).c.max === undefined) dominated = true;
    }
    if (!dominated) keep.push(cols[a] as T);
  }
  return keep;
}

/** Runs the WebAssembly code paths once, so the first real solve in a process is not several times slower. */
function warmUp(): void {
  try {
    solveCoveringLp(
      [4, 8],
      [
        { price: 1, supply: [2, 4] },
        { price: 1.5, supply: [2, 8] },
      ],
    );
  } catch {
    // A failed warm-up only costs speed; the real solve reports its own error.
  }
}

function pushTerms(lines: string[], terms: [number, number][]): void {
  // Short lines: the LP format reader is happiest with them, and continuation lines are allowed.
  for (let k = 0; k < terms.length; k += 8) {
    const chunk = terms
      .slice(k, k + 8)
      .map(([coef, j]) => `+ ${num(coef)} x${j}`)
      .join(' ');
    lines.push(`  ${chunk}`);
  }
}

function num(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toPrecision(12);
}
