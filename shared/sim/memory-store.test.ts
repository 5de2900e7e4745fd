import { describe, expect, it } from 'vitest';
import { nodeClaim } from '../../testkit/builders';
import { IllegalTransitionError, type NodeClaim } from '../api/nodeclaim';
import { ConflictError } from '../errors';
import { MemoryNodeClaimStore } from './memory-store';

let now = Date.parse('2026-01-01T00:00:00Z');
const clock = { now: () => now };

const claim = (overrides: Partial<NodeClaim> = {}): NodeClaim =>
  nodeClaim({
    uid: 'uid-1',
    cluster: 'c',
    labels: {},
    requests: { cpu: 1000 },
    nominatedPods: [{ namespace: 'default', name: 'web-1' }],
    createdAt: new Date(now).toISOString(),
    ...overrides,
  });

describe('MemoryNodeClaimStore', () => {
  it('refuses a second create of the same name', async () => {
    const store = new MemoryNodeClaimStore({ clock });
    await store.create(claim());
    await expect(store.create(claim({ uid: 'uid-2' }))).rejects.toBeInstanceOf(ConflictError);
    expect((await store.get('default-abc12'))?.uid).toBe('uid-1');
  });

  it('bumps the version and stamps the state time on transition', async () => {
    const store = new MemoryNodeClaimStore({ clock });
    const c = await store.create(claim());
    now += 1000;
    const l = await store.transition(c, 'Launched', { instanceId: 'i-1', version: 42, state: 'Failed' });
    expect(l).toMatchObject({ state: 'Launched', version: 2, instanceId: 'i-1' });
    expect(l.stateTimes.Launched).toBe(new Date(now).toISOString());
    expect(await store.getByInstanceId('i-1')).toEqual(l);
  });

  it('lets exactly one of two racing writers win', async () => {
    const store = new MemoryNodeClaimStore({ clock });
    const c = await store.create(claim());
    const results = await Promise.allSettled([
      store.transition(c, 'Launched', { instanceId: 'i-a' }),
      store.transition(c, 'Failed', { failure: { reason: 'x', message: 'y' } }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toBeInstanceOf(ConflictError);
    await expect(store.delete(c)).rejects.toBeInstanceOf(ConflictError);
  });

  it('enforces the state machine before writing', async () => {
    const store = new MemoryNodeClaimStore({ clock });
    const c = await store.create(claim());
    await expect(store.transition(c, 'Initialized')).rejects.toBeInstanceOf(IllegalTransitionError);
    expect((await store.get(c.name))?.version).toBe(1);
  });

  it('filters claims by state and NodePool, and offerings by expiry', async () => {
    const store = new MemoryNodeClaimStore({ clock });
    await store.create(claim({ name: 'a', nodePool: 'web' }));
    await store.create(claim({ name: 'b', nodePool: 'batch', state: 'Failed' }));
    expect((await store.list({ states: ['Pending'] })).map((c) => c.name)).toEqual(['a']);
    expect((await store.list({ nodePool: 'batch' })).map((c) => c.name)).toEqual(['b']);
    await store.markUnavailable({ instanceType: 'm5.large', zone: 'z', capacityType: 'spot', expiresAt: now + 10 });
    expect(await store.listUnavailable(now)).toHaveLength(1);
    expect(await store.listUnavailable(now + 10)).toHaveLength(0);
  });

  it('hands out frozen snapshots, so a caller cannot change stored state by mutation', async () => {
    const store = new MemoryNodeClaimStore({ clock });
    const c = await store.create(claim());
    expect(() => c.nominatedPods.push({ namespace: 'x', name: 'y' })).toThrow(TypeError);
    expect((await store.get(c.name))?.nominatedPods).toHaveLength(1);
    const mine = claim();
    await store.create({ ...mine, name: 'other' });
    mine.nominatedPods.push({ namespace: 'x', name: 'y' });
    expect((await store.get('other'))?.nominatedPods).toHaveLength(1);
  });

  it('finds decisions per claim in time order', async () => {
    const store = new MemoryNodeClaimStore({ clock });
    const base = { cluster: 'c', kind: 'Provision' as const, summary: 's', detail: {} };
    await store.putDecision({ ...base, id: '2', at: '2026-01-01T00:00:02Z', nodeClaims: ['a'] });
    await store.putDecision({ ...base, id: '1', at: '2026-01-01T00:00:01Z', nodeClaims: ['a', 'b'] });
    expect((await store.listDecisions('a')).map((d) => d.id)).toEqual(['1', '2']);
    expect((await store.listDecisions('b')).map((d) => d.id)).toEqual(['1']);
  });
});
