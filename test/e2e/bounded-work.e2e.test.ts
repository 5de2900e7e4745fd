// A burst of forged PodsPending hints on the local pipeline, with a spot warning sent at the same moment: the burst
// coalesces into a handful of provisioning passes and cluster LIST calls (docs/architecture.md, "Coalescing"), and
// the interruption path does no more waiting behind provisioning than without it. Work is counted, not timed: LIST
// calls on the simulated API server, provisioning passes from the handlers' logs, and virtual time.
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalPipeline } from '../../local';
import { SimCluster } from '../../shared/sim';
import { testNodeClass } from '../../testkit/bed';
import { allBound, CLUSTER, pipeline, pods, spotPool, spotWarning } from './helpers';

const FORGED = 1_000;

let open: LocalPipeline[] = [];
afterEach(async () => {
  for (const p of open) await p.stop();
  open = [];
});

/** Counts every cluster-wide LIST the handlers make on the simulated API server. */
function countLists(p: LocalPipeline): { total: () => number } {
  let calls = 0;
  const sim = p.sim as unknown as Record<string, (...args: unknown[]) => unknown>;
  // Methods of the class and the ones it defines as instance properties.
  const names = new Set([...Object.getOwnPropertyNames(SimCluster.prototype), ...Object.keys(p.sim)]);
  for (const name of [...names].filter((n) => n.startsWith('list') && typeof sim[n] === 'function')) {
    const original = sim[name]?.bind(p.sim);
    if (!original) continue;
    sim[name] = (...args: unknown[]) => {
      calls++;
      return original(...args);
    };
  }
  return { total: () => calls };
}

interface Run {
  passes: number;
  lists: number;
  /** LIST calls made after the warning was sent and before the interruption function received it. */
  listsAheadOfInterruption: number;
  /** Virtual ms from the warning to the interrupted claim's termination. */
  interruptionMs: number;
}

/** Brings a small spot cluster up, then sends the warning for one node, with `forged` PodsPending hints beside it. */
async function interruptWithBurst(forged: number): Promise<Run> {
  const p = await pipeline({ objects: [spotPool(), testNodeClass(), ...pods(4)], logLevel: 'INFO' });
  open.push(p);
  expect(await p.runUntil(allBound(p), 5 * 60_000)).toBe(true);
  p.stopSweeps();
  const [victim] = await p.simCloud.list();
  if (!victim) throw new Error('no instance launched');
  const passesBefore = passes(p);
  const lists = countLists(p);
  let ahead: number | undefined;
  const receive = p.queues.interruption.receive.bind(p.queues.interruption);
  p.queues.interruption.receive = (...args) => {
    const got = receive(...args);
    if (got.length > 0 && ahead === undefined) ahead = lists.total();
    return got;
  };

  const sentAt = p.clock.now();
  for (let i = 0; i < forged; i++) {
    const body = {
      v: 1,
      cluster: CLUSTER,
      kind: 'PodsPending',
      at: p.clock.iso(),
      refs: [{ namespace: 'default', name: `forged-${i}` }],
    };
    expect(p.sendToEvents(JSON.stringify(body), `forged-${i}`)).toBe(true);
  }
  p.sendInterruption(spotWarning(victim.instanceId, p.clock.iso()));
  const gone = async () => (await p.store.getByInstanceId(victim.instanceId))?.state === 'Terminated';
  expect(await p.runUntil(gone, 10 * 60_000)).toBe(true);
  const interruptionMs = p.clock.now() - sentAt;
  // The displaced pods are placed again: the burst kept no real work from being done.
  expect(await p.runUntil(allBound(p), 10 * 60_000)).toBe(true);
  expect(p.queues.events.size + p.queues.eventsDlq.size).toBe(0);
  return {
    passes: passes(p) - passesBefore,
    lists: lists.total(),
    listsAheadOfInterruption: ahead ?? Number.POSITIVE_INFINITY,
    interruptionMs,
  };
}

const passes = (p: LocalPipeline) => p.logs.filter((l) => l.message === 'provisioning pass').length;

describe('local pipeline: a burst of hints is bounded work', () => {
  it(`coalesces ${FORGED} forged PodsPending into a handful of passes, and the interruption path holds`, async () => {
    const baseline = await interruptWithBurst(0);
    const burst = await interruptWithBurst(FORGED);
    console.log(`bounded work: baseline ${JSON.stringify(baseline)}, burst ${JSON.stringify(burst)}`);

    // A handful of passes beyond what the interruption alone costs, not one per hint.
    expect(burst.passes - baseline.passes).toBeLessThanOrEqual(3);
    // A pass lists each kind of cluster object about once; the extra passes bound the extra LIST calls.
    const perPass = Math.ceil(baseline.lists / Math.max(1, baseline.passes));
    expect(burst.lists - baseline.lists).toBeLessThanOrEqual(3 * perPass);
    // The interruption function waits behind at most one provisioning pass's LIST calls, and its drain and
    // termination finish no later in virtual time than without the burst.
    expect(burst.listsAheadOfInterruption - baseline.listsAheadOfInterruption).toBeLessThanOrEqual(perPass);
    expect(burst.interruptionMs).toBeLessThanOrEqual(baseline.interruptionMs);
  }, 300_000);
});
