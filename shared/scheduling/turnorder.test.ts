import { describe, expect, it } from 'vitest';
import type { PodBase } from './podshape';
import type { QueuedPod } from './queue';
import { sortByTurn } from './turnorder';

function queued(order: number, cpu: number, memory: number): QueuedPod {
  const base = { requests: Float64Array.from([cpu, memory, 1]) } as PodBase;
  return { pod: { metadata: { name: `p${order}` } } as QueuedPod['pod'], base, order, done: false };
}

describe('sortByTurn', () => {
  it('puts the largest cpu first, then the largest memory, then the input order', () => {
    const queue = [
      queued(0, 100, 5),
      queued(1, 300, 1),
      queued(2, 100, 9),
      queued(3, 300, 1),
      queued(4, 200, 2),
      queued(5, 100, 9),
    ];
    sortByTurn(queue);
    expect(queue.map((q) => q.order)).toEqual([1, 3, 4, 2, 5, 0]);
  });

  it('reads a base without requests as zero', () => {
    const empty = { ...queued(0, 0, 0), base: { requests: new Float64Array(0) } as PodBase };
    const queue = [empty, queued(1, 1, 0)];
    sortByTurn(queue);
    expect(queue.map((q) => q.order)).toEqual([1, 0]);
  });
});
