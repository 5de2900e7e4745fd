import { describe, expect, it } from 'vitest';
import { parseControlMessage } from './control';
import { gcTickTemplate, parseGcTick, sweepTemplate, validateGcTick } from './schedule';

describe('scheduler payloads', () => {
  it('templates become valid messages once the scheduler substitutes the time', () => {
    const at = '2026-11-21T21:05:00Z';
    const gc = gcTickTemplate('demo').replace('<aws.scheduler.scheduled-time>', at);
    expect(parseGcTick(gc)).toEqual({ v: 1, cluster: 'demo', kind: 'GarbageCollect', at: '2026-11-21T21:05:00.000Z' });
    const prices = gcTickTemplate('demo', 'RefreshPrices').replace('<aws.scheduler.scheduled-time>', at);
    expect(parseGcTick(prices)).toMatchObject({ cluster: 'demo', kind: 'RefreshPrices' });
    const sweep = sweepTemplate('demo')
      .replace('<aws.scheduler.scheduled-time>', at)
      .replace('<aws.scheduler.execution-id>', 'e-1');
    expect(parseControlMessage(sweep)).toMatchObject({ kind: 'Sweep', cluster: 'demo', execution: 'e-1' });
  });

  it("accepts a sweep without the Scheduler's execution id, and refuses an empty one", () => {
    const tick = { v: 1, cluster: 'demo', kind: 'Sweep', at: '2026-11-21T21:05:00Z' };
    expect(parseControlMessage(JSON.stringify(tick))).not.toHaveProperty('execution');
    expect(() => parseControlMessage(JSON.stringify({ ...tick, execution: '' }), { source: 'tick' })).toThrow(
      'tick: execution: expected a non-empty string, got ""',
    );
  });

  it('names every problem of a bad tick', () => {
    expect(() => validateGcTick({ v: 3, kind: 'Sweep' }, 'gc')).toThrow(
      [
        'gc: v: unsupported version 3 (expected 1)',
        'gc: kind: unknown kind "Sweep" (expected one of: GarbageCollect, RefreshPrices)',
        'gc: cluster: required string is missing',
        'gc: at: required string is missing',
      ].join('\n'),
    );
    expect(() => validateGcTick('tick', 'gc')).toThrow('gc: (body): expected an object, got "tick"');
  });
});
