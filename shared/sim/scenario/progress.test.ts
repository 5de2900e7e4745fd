// Progress lines and the pending-pods series of a scenario run (runner.ts, recorder.ts).
import { describe, expect, it } from 'vitest';
import { apply, deployment, MINUTE, nodeClass, nodePool, run, scale, scenario, step } from '../../../testkit/scenario';

describe('scenario progress and pending pods over time', () => {
  it('reports simulated and wall time every progressEveryMs of wall time, from start to done', async () => {
    const lines: string[] = [];
    let wallMs = 0;
    await run(scenario(20 * MINUTE, [step(0, apply(nodePool(), nodeClass(), deployment('web', 6)))]), {
      onProgress: (line) => lines.push(line),
      // Each read of the wall clock moves it 100 ms, so lines come every few loop turns without real waiting.
      wallClock: () => (wallMs += 100),
      progressEveryMs: 500,
    });
    expect(lines[0]).toBe('scenario test: 1 step(s) over 20m');
    expect(lines.at(-1)).toMatch(/^scenario test: done, 20m simulated in \d+\.\d s wall, \d+ timeline entries$/);
    const middle = lines.slice(1, -1);
    expect(middle.length).toBeGreaterThan(1);
    const percents = middle.map((l) => {
      const m =
        /^scenario test: \S+ of 20m simulated \((\d+)%\), (\d+\.\d) s wall; \d+ node\(s\), \d+ pod\(s\) pending$/.exec(
          l,
        );
      expect(m, l).not.toBeNull();
      return Number(m?.[1]);
    });
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
  });

  it('says nothing without onProgress', async () => {
    let reads = 0;
    await run(scenario(5 * MINUTE, [step(0, apply(nodePool(), nodeClass(), deployment('web', 2)))]), {
      wallClock: () => ++reads,
    });
    // The wall clock is read for the start only; no progress work happens per turn.
    expect(reads).toBeLessThanOrEqual(2);
  });

  it('samples pending pods with the peak between samples, at the cost samples times', async () => {
    const r = await run(
      scenario(20 * MINUTE, [
        step(0, apply(nodePool(), nodeClass(), deployment('web', 4))),
        step(10 * MINUTE, scale('web', 12)),
      ]),
    );
    expect(r.pendingOverTime.map((p) => p.at)).toEqual(r.costOverTime.map((c) => c.at));
    for (const p of r.pendingOverTime) expect(p.peak).toBeGreaterThanOrEqual(p.pending);
    // Pods appear pending at 0s and at 10m and wait about 46 s for their nodes: a peak shows in those samples only.
    // Of the 8 added at 10m, the 2 that fit on a running node are nominated there and bound by kube-scheduler in
    // the same instant; 6 wait for the new node.
    const at = (t: string) => r.pendingOverTime.find((p) => p.at === t);
    expect(at('0s')).toEqual({ at: '0s', pending: 4, peak: 4 });
    expect(at('10m')?.peak).toBe(6);
    expect(r.pendingOverTime.at(-1)).toMatchObject({ pending: 0, peak: 0 });
    expect(r.pendingOverTime.filter((p) => p.peak > 0).map((p) => p.at)).toEqual(['0s', '10m']);
  });
});
