import { describe, expect, it } from 'vitest';
import { createTestbed, makePod, RecordingQueue } from '../../testkit/bed';
import { parseControlMessage } from '../events';
import type { ClusterMessage, DisruptionDueMessage, SweepMessage } from '../messages';
import type { ControlPlaneDeps } from './deps';
import { type DispatchOptions, handleControlMessage, type SweepOutcome, type SweepRun } from './dispatch';
import { provision } from './provision';

const quiet: SweepOutcome = { decided: [], started: [], dropped: [], inflight: 0 };

/** A test bed with the production queue layout (a separate termination queue) and a scripted sweep (tests replace
 * it) that records how it was asked to run. */
function bed() {
  const t = createTestbed({ cluster: 'demo' });
  const termination = new RecordingQueue(t.clock);
  t.deps.terminationQueue = termination;
  const runs: SweepRun[] = [];
  const options: DispatchOptions = {
    sweep: async (_deps: ControlPlaneDeps, run: SweepRun) => {
      runs.push(run);
      return quiet;
    },
  };
  const sweep = (): SweepMessage => ({ v: 1, cluster: 'demo', kind: 'Sweep', at: t.clock.iso() });
  const due = (at: number): DisruptionDueMessage => ({
    v: 1,
    cluster: 'demo',
    kind: 'DisruptionDue',
    at: new Date(at).toISOString(),
  });
  const dueSent = (queue: RecordingQueue) =>
    queue.sent.filter((m) => parseControlMessage(m.body).kind === 'DisruptionDue');
  return { t, termination, runs, options, sweep, due, dueSent };
}

describe('dispatch: the disruption validation re-check', () => {
  it('schedules the re-check a Sweep reports on the termination queue, delayed until it is due', async () => {
    const { t, termination, runs, options, sweep, dueSent } = bed();
    const dueAt = t.clock.now() + 15_000;
    options.sweep = async (_deps, run) => {
      runs.push(run);
      return { ...quiet, decided: ['c1'], inflight: 1, nextValidationAt: dueAt };
    };
    const result = await handleControlMessage(t.deps, sweep(), options);
    expect(result.kind).toBe('sweep');
    expect(runs).toEqual([{ progressOnly: false }]);
    expect(dueSent(termination)).toEqual([
      {
        body: JSON.stringify({ v: 1, cluster: 'demo', kind: 'DisruptionDue', at: new Date(dueAt).toISOString() }),
        delaySeconds: 15,
        visibleAt: dueAt,
      },
    ]);
    // Nothing on the FIFO queue: it cannot hold a single message back.
    expect(dueSent(t.queue)).toEqual([]);
  });

  it('rounds the delay up, so the message never arrives early, and keeps it within 1..900 s', async () => {
    const { t, termination, options, sweep } = bed();
    const now = t.clock.now();
    const delays: number[] = [];
    for (const ahead of [14_200, 300, 3_600_000]) {
      options.sweep = async () => ({ ...quiet, inflight: 1, nextValidationAt: now + ahead });
      await handleControlMessage(t.deps, sweep(), options);
      delays.push(termination.sent.at(-1)?.delaySeconds ?? -1);
    }
    expect(delays).toEqual([15, 1, 900]);
  });

  it('schedules nothing when no command is validating, or when a due re-check was not moved on by this run', async () => {
    const { t, termination, options, sweep } = bed();
    const now = t.clock.now();
    // Nothing validating; a re-check past due and one due now that this run left (a conflicting write, say): the
    // next Sweep tick retries those, rather than a message re-sent every second.
    const outcomes = [{}, { inflight: 1, nextValidationAt: now - 1 }, { inflight: 1, nextValidationAt: now }];
    for (const outcome of outcomes) {
      options.sweep = async () => ({ ...quiet, ...outcome });
      await handleControlMessage(t.deps, sweep(), options);
    }
    expect(termination.sent).toEqual([]);
    expect(t.queue.sent).toEqual([]);
  });

  it('runs a DisruptionDue as a progress-only sweep, without provisioning, and schedules the next re-check it reports', async () => {
    const { t, termination, runs, options, due, dueSent } = bed();
    const now = t.clock.now();
    options.sweep = async (_deps, run) => {
      runs.push(run);
      return { ...quiet, started: ['c1'], inflight: 1, nextValidationAt: now + 40_000 };
    };
    const result = await handleControlMessage(t.deps, due(now), options);
    expect(result).toEqual({ kind: 'disruption-due', action: 'checked' });
    expect(runs).toEqual([{ progressOnly: true }]);
    expect(dueSent(termination).map((m) => [parseControlMessage(m.body).at, m.delaySeconds])).toEqual([
      [new Date(now + 40_000).toISOString(), 40],
    ]);
  });

  it('without a termination queue, schedules on the cluster queue, and a consumer without the sweep leaves it', async () => {
    const t = createTestbed({ cluster: 'demo' });
    const dueAt = t.clock.now() + 15_000;
    const options: DispatchOptions = { sweep: async () => ({ ...quiet, inflight: 1, nextValidationAt: dueAt }) };
    await handleControlMessage(t.deps, { v: 1, cluster: 'demo', kind: 'Sweep', at: t.clock.iso() }, options);
    const [scheduled] = t.queue.sent;
    expect(scheduled).toMatchObject({
      groupId: 'demo',
      deduplicationId: `disruption-due-${new Date(dueAt).toISOString()}`,
      delaySeconds: 15,
    });
    // Relaying it onto the queue it came from would loop; the next Sweep tick re-checks the command instead.
    const message = parseControlMessage(scheduled?.body ?? '');
    expect(await handleControlMessage(t.deps, message)).toEqual({ kind: 'disruption-due', action: 'ignored' });
    expect(t.queue.sent).toHaveLength(1);
  });
});

describe('dispatch: the sweep metrics', () => {
  it('a planning run always reports; a progress-only run only when it moved a command', async () => {
    const { t, options, sweep, due } = bed();
    const metrics: [string, number][] = [];
    t.deps.metric = (name, value) => metrics.push([name, value]);
    const decided = (m: [string, number][]) => m.filter(([name]) => name === 'DisruptionDecided');
    await handleControlMessage(t.deps, sweep(), options);
    expect(decided(metrics)).toEqual([['DisruptionDecided', 0]]);
    metrics.length = 0;
    await handleControlMessage(t.deps, due(t.clock.now()), options);
    expect(metrics).toEqual([]);
    options.sweep = async () => ({ ...quiet, started: ['c1'], inflight: 1 });
    await handleControlMessage(t.deps, due(t.clock.now()), options);
    expect(metrics).toEqual([
      ['DisruptionDecided', 0],
      ['DisruptionStarted', 1],
      ['DisruptionDropped', 0],
    ]);
  });
});

describe('dispatch: NodeChanged', () => {
  const nodeChanged = (at: string): ClusterMessage => ({ v: 1, cluster: 'demo', kind: 'NodeChanged', at, refs: [] });

  it('moves disruption commands on (progress only) when a node initializes, and not otherwise', async () => {
    const { t, runs, options } = bed();
    t.cluster.addPod(makePod('web-0'));
    await provision(t.deps);
    // Launched, not yet registered: the lifecycle initializes nothing, so no sweep runs.
    await handleControlMessage(t.deps, nodeChanged(t.clock.iso()), options);
    expect(runs).toEqual([]);
    t.clock.advance(60_000);
    const result = await handleControlMessage(t.deps, nodeChanged(t.clock.iso()), options);
    expect(result).toMatchObject({ kind: 'lifecycle', result: { initialized: [expect.any(String)] } });
    expect(runs).toEqual([{ progressOnly: true }]);
    // The same node again: already initialized, nothing to move on.
    await handleControlMessage(t.deps, nodeChanged(t.clock.iso()), options);
    expect(runs).toHaveLength(1);
  });

  it('runs no sweep where none is wired', async () => {
    const { t } = bed();
    t.cluster.addPod(makePod('web-0'));
    await provision(t.deps);
    t.clock.advance(60_000);
    const result = await handleControlMessage(t.deps, nodeChanged(t.clock.iso()), {});
    expect(result).toMatchObject({ kind: 'lifecycle', result: { initialized: [expect.any(String)] } });
  });
});
