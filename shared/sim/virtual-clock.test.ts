import { describe, expect, it } from 'vitest';
import { VirtualClock } from './virtual-clock';

describe('VirtualClock', () => {
  it('starts at the given time and only moves when advanced', () => {
    const clock = new VirtualClock('2025-06-01T00:00:00Z');
    expect(clock.iso()).toBe('2025-06-01T00:00:00.000Z');
    clock.advance(1500);
    expect(clock.now()).toBe(Date.parse('2025-06-01T00:00:01.500Z'));
    expect(() => clock.advance(-1)).toThrow(RangeError);
  });

  it('fires timers in due order, ties in the order set, at their due time', () => {
    const clock = new VirtualClock(0);
    const fired: string[] = [];
    clock.setTimer(200, () => fired.push(`b@${clock.now()}`));
    clock.setTimer(100, () => fired.push(`a@${clock.now()}`));
    clock.setTimer(200, () => fired.push(`c@${clock.now()}`));
    expect(clock.advance(150)).toBe(1);
    expect(fired).toEqual(['a@100']);
    clock.advance(100);
    expect(fired).toEqual(['a@100', 'b@200', 'c@200']);
    expect(clock.now()).toBe(250);
  });

  it('fires timers set by timers when they fall inside the advance, and cancels cleared ones', () => {
    const clock = new VirtualClock(0);
    const fired: number[] = [];
    clock.setTimer(10, () => clock.setTimer(10, () => fired.push(clock.now())));
    const dropped = clock.setTimer(15, () => fired.push(-1));
    expect(clock.clearTimer(dropped)).toBe(true);
    clock.advance(30);
    expect(fired).toEqual([20]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('runs until idle', () => {
    const clock = new VirtualClock(0);
    let n = 0;
    const tick = () => {
      if (++n < 5) clock.setTimer(1000, tick);
    };
    clock.setTimer(1000, tick);
    expect(clock.runUntilIdle()).toBe(5);
    expect(clock.now()).toBe(5000);
  });
});
