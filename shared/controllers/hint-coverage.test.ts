import { describe, expect, it } from 'vitest';
import { HintCoverage } from './hint-coverage';

describe('HintCoverage', () => {
  it('answers a hint only with a completed run received at or after the hint was sent', () => {
    const c = new HintCoverage();
    expect(c.covers('PodsPending', 1_000)).toBe(false);
    c.completed('PodsPending', 2_000);
    expect(c.covers('PodsPending', 1_999)).toBe(true);
    expect(c.covers('PodsPending', 2_000)).toBe(true);
    expect(c.covers('PodsPending', 2_001)).toBe(false);
    // An older receipt (a redelivered record) never moves the mark back.
    c.completed('PodsPending', 500);
    expect(c.covers('PodsPending', 2_000)).toBe(true);
  });

  it('lets a run answer only the kinds its work covers', () => {
    const c = new HintCoverage();
    c.completed('PodsPending', 2_000);
    expect(c.covers('NodePoolChanged', 1_000)).toBe(false);
    expect(c.covers('NodeChanged', 1_000)).toBe(false);
    c.completed('NodePoolChanged', 3_000);
    expect(c.covers('NodePoolChanged', 3_000)).toBe(true);
    expect(c.covers('PodsPending', 3_000)).toBe(true);
    c.completed('Sweep', 4_000);
    expect(c.covers('PodsPending', 4_000)).toBe(true);
    expect(c.covers('NodeChanged', 4_000)).toBe(false);
    // Commands are never answered by an earlier run.
    c.completed('DisruptionDue', 5_000);
    c.completed('Terminate', 5_000);
    expect(c.covers('DisruptionDue', 1)).toBe(false);
    expect(c.covers('Terminate', 1)).toBe(false);
  });
});
