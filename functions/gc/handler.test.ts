import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readFixture } from '../../events';
import { makePod } from '../../testkit/bed';
import { captureOutput, functionBed, portsOf } from '../../testkit/function-bed';
import { fakeContext } from '../middleware/fake-context';
import { createHandler } from './handler';

beforeEach(() => {
  captureOutput();
});
afterEach(() => vi.restoreAllMocks());

describe('gc handler', () => {
  it('ends a claim whose instance vanished and rejects a tick for another cluster', async () => {
    const { t, observability } = functionBed('gc');
    const handler = createHandler(() => portsOf(t), observability);
    t.cluster.addPod(makePod('web-0'));
    await t.settle(60_000);
    const [claim] = await t.store.list({ states: ['Initialized'] });
    await t.cloud.delete(claim?.instanceId ?? '');
    const tick = JSON.parse(readFixture('gc-tick.json')) as unknown;
    const out = await handler(tick, fakeContext());
    expect(out.gc.failedClaims).toEqual([claim?.name]);
    expect((await t.store.get(claim?.name ?? ''))?.state).toBe('Draining');

    const foreign = { ...(tick as object), cluster: 'other' };
    await expect(handler(foreign, fakeContext())).rejects.toThrow(/cluster other/);
    await expect(handler({ v: 1, kind: 'Nope' }, fakeContext())).rejects.toThrow();
  });
});
