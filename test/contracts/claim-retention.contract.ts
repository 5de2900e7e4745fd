// How long a NodeClaimStore keeps Terminated claims in `list`, whatever is behind it. The DynamoDB store runs this
// suite against dynalite (claim-retention.dynamo.test.ts), the in-memory store directly
// (claim-retention.memory.test.ts): the simulator is the control plane's test bed, so it must forget
// terminated claims exactly when the table does.
import { describe, expect, it } from 'vitest';
import { type NodeClaim, type NodeClaimState, TERMINATED_CLAIM_RETENTION_MS } from '../../shared/api/nodeclaim';
import type { Clock, NodeClaimStore } from '../../shared/ports';
import { nodeClaim } from '../../testkit/builders';

export interface ClaimRetentionFixture {
  /** A store with no claims yet, reading time from `clock`. */
  makeStore(clock: Clock): NodeClaimStore | Promise<NodeClaimStore>;
}

const START = Date.parse('2026-03-01T00:00:00Z');
const R = TERMINATED_CLAIM_RETENTION_MS;

/** A claim of this suite's cluster, created at START. */
function claim(name: string, overrides: Partial<NodeClaim> = {}): NodeClaim {
  return nodeClaim({
    name,
    cluster: 'contract',
    nominatedPods: [{ namespace: 'default', name: `${name}-pod`, uid: `${name}-pod-uid` }],
    createdAt: new Date(START).toISOString(),
    ...overrides,
  });
}

export function describeClaimRetentionContract(name: string, fixture: ClaimRetentionFixture): void {
  async function setup() {
    let now = START;
    const clock = { now: () => now };
    const store = await fixture.makeStore(clock);
    const names = async (states?: NodeClaimState[]) =>
      (await store.list(states ? { states } : {})).map((c) => c.name).sort();
    const at = (t: number): void => {
      now = t;
    };
    return { store, names, at };
  }

  /** Pending → Launched → Draining at START, Terminated at `terminatedAt`. */
  async function terminate(s: Awaited<ReturnType<typeof setup>>, n: string, terminatedAt: number) {
    s.at(START);
    const c = await s.store.create(claim(n));
    const launched = await s.store.transition(c, 'Launched', { instanceId: `i-${n}` });
    const draining = await s.store.transition(launched, 'Draining');
    s.at(terminatedAt);
    return s.store.transition(draining, 'Terminated');
  }

  describe(`Terminated claim retention (${name})`, () => {
    it('lists a terminated claim until its termination time + retention, then omits it; get still finds it', async () => {
      const s = await setup();
      const terminatedAt = START + 3_600_000;
      const terminated = await terminate(s, 'gone', terminatedAt);
      expect(terminated.stateTimes.Terminated).toBe(new Date(terminatedAt).toISOString());
      s.at(terminatedAt + R - 1);
      expect(await s.names()).toEqual(['gone']);
      expect(await s.names(['Terminated'])).toEqual(['gone']);
      s.at(terminatedAt + R);
      expect(await s.names()).toEqual([]);
      expect(await s.names(['Terminated'])).toEqual([]);
      expect(await s.store.get('gone')).toEqual(terminated);
    });

    it('expires a termination stamped mid-second at the next whole second (TTL precision)', async () => {
      const s = await setup();
      const terminatedAt = START + 60_000 + 250;
      await terminate(s, 'mid', terminatedAt);
      s.at(terminatedAt + R + 749);
      expect(await s.names()).toEqual(['mid']);
      s.at(terminatedAt + R + 750);
      expect(await s.names()).toEqual([]);
    });

    it('never expires a claim in any other state, however old', async () => {
      const s = await setup();
      const paths: Record<string, NodeClaimState[]> = {
        pending: [],
        launched: ['Launched'],
        registered: ['Launched', 'Registered'],
        initialized: ['Launched', 'Registered', 'Initialized'],
        draining: ['Launched', 'Registered', 'Initialized', 'Draining'],
        failed: ['Failed'],
      };
      for (const [n, path] of Object.entries(paths)) {
        let c = await s.store.create(claim(n));
        for (const to of path) c = await s.store.transition(c, to);
      }
      s.at(START + 400 * 24 * 3_600_000);
      expect((await s.store.list()).map((c) => [c.name, c.state]).sort()).toEqual([
        ['draining', 'Draining'],
        ['failed', 'Failed'],
        ['initialized', 'Initialized'],
        ['launched', 'Launched'],
        ['pending', 'Pending'],
        ['registered', 'Registered'],
      ]);
    });

    it('expires a claim created already Terminated from its termination time, not the write time', async () => {
      const s = await setup();
      const terminatedAt = START - 24 * 3_600_000;
      s.at(START);
      await s.store.create(
        claim('stamped', { state: 'Terminated', stateTimes: { Terminated: new Date(terminatedAt).toISOString() } }),
      );
      // Without a Terminated time, create stamps createdAt as the state time, as it does for any state.
      const createdAt = START - 36 * 3_600_000;
      await s.store.create(claim('unstamped', { state: 'Terminated', createdAt: new Date(createdAt).toISOString() }));
      s.at(createdAt + R - 1);
      expect(await s.names()).toEqual(['stamped', 'unstamped']);
      s.at(createdAt + R);
      expect(await s.names()).toEqual(['stamped']);
      s.at(terminatedAt + R - 1);
      expect(await s.names()).toEqual(['stamped']);
      s.at(terminatedAt + R);
      expect(await s.names()).toEqual([]);
    });

    it('keeps the expiry when a terminated claim is updated later (an update does not renew it)', async () => {
      const s = await setup();
      const terminatedAt = START + 1000;
      const terminated = await terminate(s, 'patched', terminatedAt);
      s.at(terminatedAt + R - 10_000);
      await s.store.update(terminated, { nodeName: 'ip-10-0-0-9' });
      s.at(terminatedAt + R - 1);
      expect((await s.store.list()).map((c) => [c.name, c.nodeName])).toEqual([['patched', 'ip-10-0-0-9']]);
      s.at(terminatedAt + R);
      expect(await s.names()).toEqual([]);
    });
  });
}
