import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readFixture } from '../../events';
import { sqsEvent } from '../../events/sqs';
import { provision } from '../../shared/controllers';
import { makePod } from '../../testkit/bed';
import { captureOutput, functionBed, portsOf } from '../../testkit/function-bed';
import { fakeContext } from '../middleware/fake-context';
import { createHandler } from './handler';

beforeEach(() => {
  captureOutput();
});
afterEach(() => vi.restoreAllMocks());

describe('lifecycle handler', () => {
  it('registers, initializes and binds on NodeChanged hints', async () => {
    const { t, observability } = functionBed('lifecycle');
    const handler = createHandler(() => portsOf(t), observability);
    t.cluster.addPod(makePod('web-0'));
    await provision(t.deps);
    const event = sqsEvent([readFixture('node-changed.json')]);

    t.clock.advance(31_000);
    expect(await handler(event, fakeContext())).toEqual({ batchItemFailures: [] });
    expect((await t.store.list())[0]?.state).toBe('Registered');

    t.clock.advance(15_000);
    expect(await handler(event, fakeContext())).toEqual({ batchItemFailures: [] });
    const [claim] = await t.store.list();
    expect(claim?.state).toBe('Initialized');
    expect(t.cluster.getPod('default/web-0')?.spec.nodeName).toBe(claim?.nodeName);
  });
});
