import { beforeAll, describe, expect, it, vi } from 'vitest';
import { nodePool, pod, pods } from '../../testkit/builders';
import { run, scheduledCount } from '../../testkit/solve';
import { distinctPods } from '../../testkit/workloads';
import { defaultNodePool } from '../api/default-nodepool';
import type { Pod } from '../api/kube';
import { instanceTypesFor, loadCatalog } from '../catalog';
import type { InstanceType } from '../catalog/types';
import { loadLpSolver, solve } from './index';
import type { SchedulingResult } from './types';

/** Every HiGHS program the exact packing starts, with when it started and the time limit it was handed. */
const highsCalls = vi.hoisted(() => [] as { at: number; limitS: number }[]);
vi.mock('./lp', async (original) => {
  const lp = await original<typeof import('./lp')>();
  return {
    ...lp,
    solveModel: (model: string, options: Parameters<typeof lp.solveModel>[1] = {}) => {
      highsCalls.push({ at: performance.now(), limitS: Number(options.time_limit ?? Number.POSITIVE_INFINITY) });
      return lp.solveModel(model, options);
    },
  };
});

/** A clock that moves one millisecond every time the solver reads it: the deadline falls mid-solve, deterministically. */
function tickingClock(): { now: () => number; reads: () => number } {
  let t = 0;
  return { now: () => ++t, reads: () => t };
}

/** The process's CPU time, ms: a clock that load on the machine does not move (HiGHS and the solver share one thread). */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const names = (ps: readonly Pod[]): string[] => ps.map((p) => p.metadata.name).sort();

function accountedFor(r: SchedulingResult): string[] {
  return names([
    ...r.nodeClaims.flatMap((c) => c.pods),
    ...r.existingNodes.flatMap((n) => n.pods),
    ...r.unschedulable.map((u) => u.pod),
    ...(r.deferred ?? []),
  ]);
}

/** Pods each of which needs a node of its own (distinct requests, hostname anti-affinity), so each opens a claim. */
function spreadPods(n: number): Pod[] {
  return Array.from({ length: n }, (_, i) =>
    pod({
      name: `spread-${i}`,
      cpu: `${1000 + i}m`,
      memory: `${1024 + i}Mi`,
      labels: { app: 'spread' },
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchLabels: { app: 'spread' } }, topologyKey: 'kubernetes.io/hostname' },
          ],
        },
      },
    }),
  );
}

describe('the solve deadline', () => {
  it('stops on its deadline with a partial plan and defers the pods it did not get to', () => {
    const input = spreadPods(200);
    const clock = tickingClock();
    const r = run({ pods: input, options: { timeoutMs: 300, now: clock.now } });
    expect(r.stats.timedOut).toBe(true);
    expect(r.nodeClaims.length).toBeGreaterThan(0);
    expect(r.deferred?.length).toBeGreaterThan(0);
    expect(r.nodeClaims.length + (r.deferred?.length ?? 0)).toBe(200);
    expect(r.unschedulable).toEqual([]);
    // Every pod is in exactly one place: planned, or deferred.
    expect(accountedFor(r)).toEqual(names(input));
    // Nothing was read from the clock long after the budget: the solver stopped where it ran out.
    expect(clock.reads()).toBeLessThan(300 + 50);
  });

  it('places everything, defers nothing, when the budget is ample', () => {
    const input = spreadPods(20);
    const r = run({ pods: input, options: { timeoutMs: 1e9, now: tickingClock().now } });
    expect(r.stats.timedOut).toBe(false);
    expect(r.deferred).toEqual([]);
    expect(r.nodeClaims).toHaveLength(20);
  });

  it('always places at least the first pod, however small the budget', () => {
    const r = run({ pods: spreadPods(5), options: { timeoutMs: 0, now: tickingClock().now } });
    expect(r.nodeClaims).toHaveLength(1);
    expect(r.deferred).toHaveLength(4);
  });

  /** Pods that must share a zone with an `app: target` pod. */
  const follower = (name: string, target: string): Pod =>
    pod({
      name,
      cpu: '4',
      memory: '8Gi',
      affinity: {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchLabels: { app: target } }, topologyKey: 'topology.kubernetes.io/zone' },
          ],
        },
      },
    });

  it('out of time, goes past pods that cannot land yet until one is placed', () => {
    // The followers are larger, so they come first; none can land before a leader has.
    const followers = Array.from({ length: 5 }, (_, i) => follower(`follower-${i}`, 'leader'));
    const leaders = pods(3, { cpu: '1', memory: '1Gi', labels: { app: 'leader' } });
    const r = run({ pods: [...followers, ...leaders], options: { timeoutMs: 0, now: tickingClock().now } });
    expect(scheduledCount(r)).toBeGreaterThan(0);
    expect(r.deferred?.length).toBeGreaterThan(0);
    expect(r.unschedulable).toEqual([]);
  });

  it('says why when out of time before any pod could be placed', () => {
    const input = Array.from({ length: 5 }, (_, i) => follower(`follower-${i}`, 'nobody'));
    const r = run({ pods: input, options: { timeoutMs: 0, now: tickingClock().now } });
    expect(r.nodeClaims).toEqual([]);
    expect(r.deferred).toHaveLength(5);
    expect(r.warnings.find((w) => w.startsWith('out of time before any pod was placed; 5 tried'))).toContain(
      'default/follower-',
    );
  });

  it('cuts short the fill of one new claim when the deadline falls inside it', () => {
    // One large pod opens a claim that the fill would pack with all the small ones; the deadline stops the fill.
    const input = [pod({ name: 'big', cpu: '30', memory: '60Gi' }), ...pods(400, { cpu: '10m', memory: '16Mi' })];
    const clock = tickingClock();
    const r = run({ pods: input, options: { timeoutMs: 20, now: clock.now } });
    const ample = run({ pods: input, options: { timeoutMs: 1e9, now: tickingClock().now } });
    expect(ample.deferred).toEqual([]);
    expect(r.stats.timedOut).toBe(true);
    expect(r.deferred?.length).toBeGreaterThan(0);
    expect(accountedFor(r)).toEqual(names(input));
    expect(clock.reads()).toBeLessThan(20 + 50);
  });

  it('stops while still reading the pods when the budget runs out during setup', () => {
    // Every request distinct: reading 5,000 pods takes far more clock reads than the budget allows.
    const input = distinctPods(5000, { zoneSpread: 0.15, antiAffinity: 0.1 });
    // Which pods the solver looked at: their spec is read the first time setup reads the pod.
    const read = new Set<string>();
    for (const p of input) {
      const spec = p.spec;
      Object.defineProperty(p, 'spec', {
        get: () => {
          read.add(p.metadata.name);
          return spec;
        },
      });
    }
    const clock = tickingClock();
    const r = run({ pods: input, options: { timeoutMs: 10, now: clock.now } });
    // The setup stopped reading pods soon after the budget ran out (one clock read per 64 pods).
    expect(read.size).toBeLessThan(64 * 20);
    expect(r.stats.timedOut).toBe(true);
    expect(r.nodeClaims.length).toBeGreaterThan(0);
    expect(accountedFor(r)).toEqual(names(input));
    // Without checks during setup the clock is read once per 64 pods only after all 5,000 were read.
    expect(clock.reads()).toBeLessThan(10 + 20);
  });
});

describe('the solve deadline, held within 5 % + 100 ms', () => {
  // A big batch of distinct requests with zone spread and anti-affinity, as issue 14 measures it; the clock moves
  // with the solver's work (one millisecond per read), so where it stops is deterministic and not timed.
  const input = distinctPods(20_000, { zoneSpread: 0.15, antiAffinity: 0.1 });
  for (const budget of [10, 50, 100, 250, 1000, 5000]) {
    it(`stops within 5 % + 100 ms of a ${budget} ms budget and defers the rest`, () => {
      const clock = tickingClock();
      const r = run({ pods: input, options: { timeoutMs: budget, now: clock.now } });
      expect(r.stats.timedOut).toBe(true);
      expect(r.nodeClaims.length).toBeGreaterThan(0);
      expect(r.deferred?.length).toBeGreaterThan(0);
      expect(accountedFor(r)).toEqual(names(input));
      // Reads the solver made: every one past the deadline is time past the budget.
      expect(clock.reads()).toBeLessThanOrEqual(budget * 1.05 + 100);
    });
  }
});

describe('a tiny budget on a big batch, on the CPU clock', () => {
  // What the ticking clock cannot see: the work between two reads of the clock. Setup past the deadline (the rest
  // of the pods read, the LP, every bucket priced) costs about a second of CPU at 20k distinct pods; the solver
  // stops reading pods SETUP_RESERVE_MS before its deadline and keeps what follows to the first pod. Measured: 10 ms
  // budgets stop at 50–110 ms of CPU (load average 19); the bound here is loose so the machine's load cannot fail it.
  const input = distinctPods(20_000, { zoneSpread: 0.15, antiAffinity: 0.1 });
  it('stops within a few hundred ms of CPU of a 10 ms budget, with a partial plan', () => {
    const started = cpuMs();
    const r = run({ pods: input, options: { timeoutMs: 10, now: cpuMs } });
    const spent = cpuMs() - started;
    expect(r.stats.timedOut).toBe(true);
    expect(scheduledCount(r)).toBeGreaterThan(0);
    expect(scheduledCount(r) + (r.deferred?.length ?? 0)).toBe(input.length);
    expect(spent).toBeLessThan(400);
  });
});

describe('the HiGHS stages, held to the solve deadline', () => {
  let catalog: InstanceType[];
  beforeAll(async () => {
    await loadLpSolver();
    catalog = instanceTypesFor(await loadCatalog(), defaultNodePool().nodeClass);
  });

  // Ten kinds of 20 pods on c/m/r nodes of at most 8 vCPU: too many states for the packing's dynamic program, so
  // HiGHS's branch and bound takes over, and it cannot prove its optimum in 12 s of CPU (measured). HiGHS does not read
  // the solver's clock: only the `time_limit` the solver hands it, from what is left of the budget, stops it.
  const requests = [
    ['1867m', '321Mi'],
    ['1618m', '8148Mi'],
    ['2720m', '2548Mi'],
    ['1832m', '6065Mi'],
    ['1364m', '8258Mi'],
    ['1438m', '4210Mi'],
    ['647m', '3529Mi'],
    ['918m', '1535Mi'],
    ['1522m', '838Mi'],
    ['1286m', '6436Mi'],
  ] as const;
  const batch = requests.flatMap(([cpu, memory], k) =>
    Array.from({ length: 20 }, (_, i) => pod({ name: `k${k}-${i}`, cpu, memory })),
  );
  const pool = nodePool({
    name: 'small-nodes',
    requirements: [
      { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
      { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm', 'r'] },
      { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt', values: ['4'] },
      // Generations 5–7: the types this batch was tuned on, whose packing HiGHS cannot prove within the budget.
      { key: 'karpenter.k8s.aws/instance-generation', operator: 'Lt', values: ['8'] },
      { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lt', values: ['9'] },
    ],
  });

  it('stops the exact packing within 5 % + 100 ms of the budget, with the heuristic plan whole', () => {
    const budget = 5000;
    highsCalls.length = 0;
    let firstRead: number | undefined;
    const started = performance.now();
    const r = solve({
      pods: batch,
      nodePools: [pool],
      instanceTypes: new Map([[pool.metadata.name, catalog]]),
      // The packing's own budget is far past the solve's: only the solve deadline can stop it in time.
      options: {
        timeoutMs: budget,
        now: () => {
          const t = performance.now();
          // The solve's deadline runs from its first look at the clock.
          firstRead ??= t;
          return t;
        },
        exactPackingMs: 60_000,
      },
    });
    const spent = performance.now() - started;
    // The deadline fell inside the packing: every pod was placed before it, and the proof was cut short.
    expect(r.stats.packing).toBeDefined();
    expect(r.stats.packing?.provenOptimal).toBe(false);
    expect(r.deferred).toEqual([]);
    expect(scheduledCount(r)).toBe(batch.length);
    // Each program HiGHS started was handed at most what was left of the solve's budget: that, not the packing's
    // 60 s, is what stops it. Deterministic, whatever the machine's load.
    expect(highsCalls.length).toBeGreaterThan(0);
    const end = (firstRead as number) + budget;
    // (1 ms for the call into HiGHS itself, between the limit's reading of the clock and this spy's.)
    for (const call of highsCalls) expect(call.limitS * 1000).toBeLessThanOrEqual(end - call.at + 1);
    // And the solve did stop near its budget, on the wall clock the deadline is kept on (not process CPU: V8 compiles
    // HiGHS's WebAssembly on background threads). The precise target, 5 % + 100 ms, is the benchmark's to hold
    // (docs/performance.md, "A deadline that holds"): under a loaded test run the model reading and the plan's
    // assembly after HiGHS stops stretch by whole seconds. Without the cap this solve runs 60 s.
    expect(spent).toBeLessThanOrEqual(budget * 2);
  }, 120_000);
});
