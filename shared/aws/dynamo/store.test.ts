import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { nodeClaim } from '../../../testkit/builders';
import { DECISION_BUDGET_BYTES } from '../../api/decision-size';
import { IllegalTransitionError, TERMINATED_CLAIM_RETENTION_MS } from '../../api/nodeclaim';
import { ConflictError } from '../../errors';
import { type LocalDynamo, startLocalDynamo } from './local';
import { keys, PK, SK, TTL_ATTRIBUTE } from './schema';
import { DynamoNodeClaimStore } from './store';

let db: LocalDynamo;
let now = Date.parse('2026-01-01T00:00:00Z');
const clock = { now: () => now };
let cluster = 0;
let store: DynamoNodeClaimStore;

beforeAll(async () => {
  db = await startLocalDynamo();
});
afterAll(async () => {
  await db.stop();
});
beforeEach(() => {
  // A fresh partition per test keeps tests independent without recreating the table.
  cluster++;
  store = new DynamoNodeClaimStore({ tableName: db.tableName, cluster: `c${cluster}`, client: db.client, clock });
});

describe('DynamoNodeClaimStore', () => {
  it('creates, reads back and refuses a second create of the same name', async () => {
    const created = await store.create(nodeClaim());
    expect(created.cluster).toBe(`c${cluster}`);
    expect(await store.get('default-abc12')).toEqual(created);
    await expect(store.create(nodeClaim())).rejects.toBeInstanceOf(ConflictError);
    expect(await store.get('missing')).toBeUndefined();
  });

  it('transitions with a version bump and a state timestamp', async () => {
    const c = await store.create(nodeClaim());
    now += 5000;
    const launched = await store.transition(c, 'Launched', { instanceId: 'i-0abc', zone: 'us-east-1a' });
    expect(launched.version).toBe(c.version + 1);
    expect(launched.state).toBe('Launched');
    expect(launched.stateTimes.Launched).toBe(new Date(now).toISOString());
    expect(await store.get(c.name)).toEqual(launched);
  });

  it('lets exactly one of two racing writers win; the loser gets ConflictError and nothing is overwritten', async () => {
    const c = await store.create(nodeClaim());
    const [a, b] = await Promise.allSettled([
      store.transition(c, 'Launched', { instanceId: 'i-a' }),
      store.transition(c, 'Failed', { failure: { reason: 'x', message: 'y' } }),
    ]);
    const wins = [a, b].filter((r) => r.status === 'fulfilled');
    const losses = [a, b].filter((r) => r.status === 'rejected');
    expect(wins).toHaveLength(1);
    expect(losses).toHaveLength(1);
    expect((losses[0] as PromiseRejectedResult).reason).toBeInstanceOf(ConflictError);
    const stored = await store.get(c.name);
    const winner = (wins[0] as PromiseFulfilledResult<unknown>).value;
    expect(stored).toEqual(winner);
    expect(stored?.version).toBe(2);
  });

  it('rejects a stale update and a stale delete', async () => {
    const c = await store.create(nodeClaim());
    await store.update(c, { nodeName: 'ip-10-0-0-1' });
    await expect(store.update(c, { nodeName: 'other' })).rejects.toBeInstanceOf(ConflictError);
    await expect(store.delete(c)).rejects.toBeInstanceOf(ConflictError);
    expect((await store.get(c.name))?.nodeName).toBe('ip-10-0-0-1');
  });

  it('never lets a patch change identity, version or state', async () => {
    const c = await store.create(nodeClaim());
    const u = await store.update(c, { state: 'Initialized', version: 99, name: 'evil', nodeName: 'n1' });
    expect(u).toMatchObject({ state: 'Pending', version: 2, name: c.name, nodeName: 'n1' });
  });

  it('rejects an illegal transition before writing anything', async () => {
    const c = await store.create(nodeClaim());
    await expect(store.transition(c, 'Initialized')).rejects.toBeInstanceOf(IllegalTransitionError);
    expect(await store.get(c.name)).toEqual(c);
  });

  it("rejects a stale transition; the re-read claim transitions, keeping the other writer's change", async () => {
    const c = await store.create(nodeClaim());
    await store.update(c, { nodeName: 'raced-in' }); // the other writer
    await expect(store.transition(c, 'Launched', { instanceId: 'i-1' })).rejects.toBeInstanceOf(ConflictError);
    const current = await store.get(c.name);
    if (!current) throw new Error('the claim is gone');
    const out = await store.transition(current, 'Launched', { instanceId: 'i-1' });
    expect(out).toMatchObject({ state: 'Launched', version: 3, nodeName: 'raced-in', instanceId: 'i-1' });
  });

  it('lists by state and by NodePool', async () => {
    const a = await store.create(nodeClaim({ name: 'a', nodePool: 'web' }));
    await store.create(nodeClaim({ name: 'b', nodePool: 'batch' }));
    await store.transition(a, 'Launched');
    expect((await store.list()).map((c) => c.name).sort()).toEqual(['a', 'b']);
    expect((await store.list({ states: ['Launched'] })).map((c) => c.name)).toEqual(['a']);
    expect((await store.list({ nodePool: 'batch' })).map((c) => c.name)).toEqual(['b']);
    expect(await store.list({ states: ['Pending'], nodePool: 'web' })).toEqual([]);
    expect(await store.list({ states: [] })).toEqual([]);
  });

  it('finds a claim by instance id through the GSI, and only in its own cluster', async () => {
    const c = await store.create(nodeClaim());
    await store.transition(c, 'Launched', { instanceId: 'i-0123456789abcdef0' });
    expect((await store.getByInstanceId('i-0123456789abcdef0'))?.name).toBe(c.name);
    expect(await store.getByInstanceId('i-other')).toBeUndefined();
    const neighbour = new DynamoNodeClaimStore({ tableName: db.tableName, cluster: 'elsewhere', client: db.client });
    expect(await neighbour.getByInstanceId('i-0123456789abcdef0')).toBeUndefined();
  });

  it('deletes at the current version', async () => {
    const c = await store.create(nodeClaim());
    await store.delete(c);
    expect(await store.get(c.name)).toBeUndefined();
  });

  it('gives a claim the TTL attribute only once it is Terminated: termination time + retention, in epoch seconds', async () => {
    const raw = async (name: string) =>
      (
        await db.client.send(
          new GetCommand({
            TableName: db.tableName,
            Key: { [PK]: keys.cluster(`c${cluster}`), [SK]: keys.nodeClaim(name) },
          }),
        )
      ).Item;
    const start = now;
    let c = await store.create(nodeClaim());
    const seen: Record<string, unknown> = { Pending: (await raw(c.name))?.[TTL_ATTRIBUTE] };
    for (const to of ['Launched', 'Registered', 'Initialized', 'Draining'] as const) {
      now += 60_000;
      c = await store.transition(c, to);
      seen[to] = (await raw(c.name))?.[TTL_ATTRIBUTE];
    }
    expect(seen).toEqual({
      Pending: undefined,
      Launched: undefined,
      Registered: undefined,
      Initialized: undefined,
      Draining: undefined,
    });
    now += 60_000 + 400;
    const terminatedAt = now;
    const terminated = await store.transition(c, 'Terminated');
    expect(terminatedAt - start).toBe(300_400);
    expect((await raw(c.name))?.[TTL_ATTRIBUTE]).toBe(Math.ceil((terminatedAt + TERMINATED_CLAIM_RETENTION_MS) / 1000));
    // An update later (the wall clock moved on) keeps the expiry of the termination, and reads never show the TTL.
    now += 3_600_000;
    const patched = await store.update(terminated, { nodeName: 'n1' });
    expect((await raw(c.name))?.[TTL_ATTRIBUTE]).toBe(Math.ceil((terminatedAt + TERMINATED_CLAIM_RETENTION_MS) / 1000));
    expect(await store.get(c.name)).toEqual(patched);
    expect(patched).not.toHaveProperty(TTL_ATTRIBUTE);

    // A failed claim keeps no TTL until it is terminated too.
    const failed = await store.transition(await store.create(nodeClaim({ name: 'f' })), 'Failed', {
      failure: { reason: 'LaunchTimeout', message: 'm' },
    });
    expect((await raw('f'))?.[TTL_ATTRIBUTE]).toBeUndefined();
    await store.transition(failed, 'Terminated');
    expect((await raw('f'))?.[TTL_ATTRIBUTE]).toBe(Math.ceil((now + TERMINATED_CLAIM_RETENTION_MS) / 1000));
  });

  it('filters expired unavailable offerings in the read', async () => {
    await store.markUnavailable({
      instanceType: 'm5.large',
      zone: 'us-east-1a',
      capacityType: 'spot',
      expiresAt: now + 1000,
      reason: 'ICE',
    });
    await store.markUnavailable({
      instanceType: 'c5.large',
      zone: 'us-east-1b',
      capacityType: 'on-demand',
      expiresAt: now - 1,
    });
    expect(await store.listUnavailable(now)).toEqual([
      { instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'spot', expiresAt: now + 1000, reason: 'ICE' },
    ]);
    expect(await store.listUnavailable(now + 1000)).toEqual([]);
  });

  it('keeps a refused reservation apart from the other reservations of its type and zone', async () => {
    const base = { instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'reserved' as const };
    await store.markUnavailable({ ...base, reservationId: 'cr-0a1', expiresAt: now + 1000 });
    await store.markUnavailable({ ...base, reservationId: 'cr-0b2', expiresAt: now + 2000 });
    const read = await store.listUnavailable(now);
    expect(read.map((o) => [o.reservationId, o.expiresAt]).sort()).toEqual([
      ['cr-0a1', now + 1000],
      ['cr-0b2', now + 2000],
    ]);
  });

  it('keeps decisions findable per claim', async () => {
    const base = {
      cluster: 'ignored',
      kind: 'Provision' as const,
      summary: 's',
      detail: { chosen: 'm5.large', price: 0.096 },
    };
    await store.putDecision({ ...base, id: 'd1', at: '2026-01-01T00:00:01.000Z', nodeClaims: ['a', 'b'] });
    await store.putDecision({ ...base, id: 'd2', at: '2026-01-01T00:00:02.000Z', nodeClaims: ['a'] });
    expect((await store.listDecisions('a')).map((d) => d.id)).toEqual(['d1', 'd2']);
    const [b] = await store.listDecisions('b');
    expect(b).toEqual({
      ...base,
      cluster: `c${cluster}`,
      id: 'd1',
      at: '2026-01-01T00:00:01.000Z',
      nodeClaims: ['a', 'b'],
    });
    expect(await store.listDecisions('c')).toEqual([]);
  });

  it('stores a decision too large for one item cut to the decision budget, and reads it back with its counts', async () => {
    const pods = Array.from({ length: 20_000 }, (_, i) => `team-namespace/web-7d9f8c6b5-${String(i).padStart(6, '0')}`);
    const alternatives = [{ instanceType: 'm5.xlarge', zone: 'us-east-1a', capacityType: 'spot', price: 0.06 }];
    const record = {
      id: 'big',
      cluster: 'ignored',
      at: '2026-01-01T00:00:03.000Z',
      kind: 'Provision' as const,
      nodeClaims: ['a', 'b'],
      summary: '20000 pod(s) to place',
      detail: { trigger: 'PodsPending', claims: [{ name: 'a', pods, alternatives }] },
    };
    // The emulator enforces DynamoDB's 400 KB item limit: the record as it is would be refused.
    await expect(
      db.client.send(new PutCommand({ TableName: db.tableName, Item: { ...record, [PK]: 'size-check', [SK]: 'x' } })),
    ).rejects.toThrow(/item size/i);

    await store.putDecision(record);
    for (const claim of ['a', 'b']) {
      const [back] = await store.listDecisions(claim);
      expect(back).toBeDefined();
      const kept = (back?.detail.claims as { pods: string[]; alternatives: unknown[] }[] | undefined)?.[0];
      expect(kept?.pods.length).toBeGreaterThan(1000);
      expect(kept?.pods).toEqual(pods.slice(0, kept?.pods.length));
      expect(back?.truncated).toEqual({ 'detail.claims[0].pods': pods.length - (kept?.pods.length ?? 0) });
      expect(kept?.alternatives).toEqual(alternatives);
      expect(back?.nodeClaims).toEqual(['a', 'b']);
      expect(new TextEncoder().encode(JSON.stringify(back)).length).toBeLessThanOrEqual(DECISION_BUDGET_BYTES);
    }
  });

  it('writes again at half the budget when DynamoDB counts an item larger than its JSON', async () => {
    // 110 000 empty maps are 330 KB of JSON, under the budget, but over 400 KB as DynamoDB (and dynalite) count them.
    const xs = Array.from({ length: 110_000 }, () => ({}));
    const record = {
      id: 'dense',
      cluster: 'ignored',
      at: '2026-01-01T00:00:04.000Z',
      kind: 'Keep' as const,
      nodeClaims: ['a'],
      summary: 'dense',
      detail: { xs },
    };
    expect(JSON.stringify(record).length).toBeLessThan(DECISION_BUDGET_BYTES);
    await store.putDecision(record);
    const [back] = await store.listDecisions('a');
    const kept = (back?.detail.xs as unknown[] | undefined)?.length ?? xs.length;
    expect(kept).toBeLessThan(xs.length);
    expect(back?.truncated).toEqual({ 'detail.xs': xs.length - kept });
  });
});
