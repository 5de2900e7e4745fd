import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pendingPod } from '../testkit/watch-objects';
import { Flusher, type MessageSink } from './flusher';
import type { OutgoingMessage } from './messages';
import { slimFor } from './slim';
import { ChangeTracker } from './tracker';

let tracker: ChangeTracker;
let sent: OutgoingMessage[];
let failing: boolean;
let flusher: Flusher;
const sink: MessageSink = {
  send: async (m) => {
    if (failing) throw new Error('SQS unavailable');
    sent.push(m);
  },
};
const add = (name: string) => {
  if (tracker.onEvent('pods', 'ADDED', slimFor('pods', pendingPod(name)))) flusher.notify();
};
const sentNames = () => sent.flatMap((m) => (JSON.parse(m.body).refs as { name: string }[]).map((r) => r.name));

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
  tracker = new ChangeTracker();
  sent = [];
  failing = false;
  flusher = new Flusher(tracker, sink, { cluster: 'c', backoff: { initialMs: 1000, maxMs: 8000, jitter: 0 } });
});
afterEach(() => {
  flusher.stop();
  vi.useRealTimers();
});

describe('Flusher batching window', () => {
  it('flushes 1 s after the last new item', async () => {
    add('a');
    await vi.advanceTimersByTimeAsync(900);
    add('b'); // re-arms the idle timer
    await vi.advanceTimersByTimeAsync(900);
    expect(sent).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(100);
    expect(sentNames()).toEqual(['a', 'b']);
    expect(sent).toHaveLength(1);
  });

  it('flushes 10 s after the first item even if items keep coming', async () => {
    for (let i = 0; i < 20; i++) {
      add(`p${i}`);
      await vi.advanceTimersByTimeAsync(500);
    }
    // 20 items over 10 s: one flush at t=10 s with the first 20 (the item at t=9.5 s included).
    expect(sent).toHaveLength(1);
    expect(sentNames()).toHaveLength(20);
    expect(JSON.parse(sent[0]?.body ?? '{}').at).toBe('2026-01-01T00:00:10.000Z');
  });

  it('sends nothing when nothing is new', async () => {
    add('a');
    await vi.advanceTimersByTimeAsync(1000);
    add('a'); // known already
    await vi.advanceTimersByTimeAsync(20_000);
    expect(sent).toHaveLength(1);
  });
});

describe('Flusher during an SQS outage', () => {
  it('keeps every pending pod, backs off, and sends them all on recovery', async () => {
    failing = true;
    add('a');
    await vi.advanceTimersByTimeAsync(1000); // first attempt fails
    add('b');
    await vi.advanceTimersByTimeAsync(1000); // retry at +1 s fails
    expect(flusher.consecutiveFailures).toBe(2);
    add('c');
    await vi.advanceTimersByTimeAsync(1000); // backoff is now 2 s: no attempt yet
    expect(flusher.consecutiveFailures).toBe(2);
    failing = false;
    await vi.advanceTimersByTimeAsync(1000);
    expect(flusher.consecutiveFailures).toBe(0);
    expect(sentNames().sort()).toEqual(['a', 'b', 'c']);
    expect(tracker.outboxSize).toBe(0);
  });

  it('puts back only the messages that were not sent', async () => {
    let calls = 0;
    const partial: MessageSink = {
      send: async (m) => {
        calls++;
        if (calls === 2) throw new Error('throttled');
        sent.push(m);
      },
    };
    flusher.stop();
    flusher = new Flusher(tracker, partial, {
      cluster: 'c',
      maxMessageBytes: 400,
      backoff: { initialMs: 1000, maxMs: 1000, jitter: 0 },
    });
    for (let i = 0; i < 6; i++) add(`pod-${i}`);
    await vi.advanceTimersByTimeAsync(1000);
    const afterFirst = sentNames();
    expect(afterFirst.length).toBeGreaterThan(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(sentNames().sort()).toEqual(['pod-0', 'pod-1', 'pod-2', 'pod-3', 'pod-4', 'pod-5']);
  });
});
