import { describe, expect, it } from 'vitest';
import { testNodePool } from '../../testkit/bed';
import { ec2NodeClass, nodeClaim } from '../../testkit/builders';
import { claimHashes } from '../api/hash';
import type { NodeClaim } from '../api/nodeclaim';
import { registrationHealthy, registrationOutcome } from './registration-health';

const pool = testNodePool();
const nodeClass = ec2NodeClass();
const minute = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();
const current = claimHashes(pool, nodeClass);

/** A claim of the pool, launched from its current specs, that registered at minute `m`. */
const registered = (name: string, m: number): NodeClaim =>
  nodeClaim({ name, ...current, state: 'Initialized', stateTimes: { Launched: minute(m - 1), Registered: minute(m) } });
/** A claim whose node launched but never registered, failed at minute `m`. */
const unregistered = (name: string, m: number): NodeClaim =>
  nodeClaim({
    name,
    ...current,
    state: 'Failed',
    stateTimes: { Launched: minute(m - 5), Failed: minute(m) },
    failure: { reason: 'RegistrationTimeout', message: 'node did not register within 900s of launch' },
  });
/** A claim whose launch failed (no instance), at minute `m`. */
const unlaunched = (name: string, m: number): NodeClaim =>
  nodeClaim({
    name,
    ...current,
    state: 'Failed',
    stateTimes: { Failed: minute(m) },
    failure: { reason: 'Unauthorized', message: 'not authorized to launch' },
  });

describe('NodeRegistrationHealthy', () => {
  it('is Unknown until a claim of the pool registers or fails', () => {
    expect(registrationHealthy(pool, nodeClass, [])).toEqual({
      type: 'NodeRegistrationHealthy',
      status: 'Unknown',
      reason: 'AwaitingReconciliation',
      message: 'object is awaiting reconciliation',
    });
    // A claim still launching, and a single failure (a quarter of the outcomes Karpenter keeps), decide nothing.
    expect(registrationHealthy(pool, nodeClass, [nodeClaim({ ...current })]).status).toBe('Unknown');
    expect(registrationHealthy(pool, nodeClass, [unregistered('a', 10)]).status).toBe('Unknown');
  });

  it("is False with Karpenter's RegistrationFailed once half of the last four outcomes are nodes that never registered", () => {
    expect(registrationHealthy(pool, nodeClass, [unregistered('a', 10), unregistered('b', 20)])).toEqual({
      type: 'NodeRegistrationHealthy',
      status: 'False',
      reason: 'RegistrationFailed',
      message: 'Failed to register node',
    });
    // A registration among them does not outweigh two failures of four.
    const mixed = [registered('r', 5), unregistered('a', 10), registered('s', 15), unregistered('b', 20)];
    expect(registrationHealthy(pool, nodeClass, mixed).status).toBe('False');
  });

  it("carries a failed launch's own reason and message, from the latest failure", () => {
    const claims = [unregistered('a', 10), unlaunched('b', 20)];
    expect(registrationHealthy(pool, nodeClass, claims)).toMatchObject({
      status: 'False',
      reason: 'Unauthorized',
      message: 'not authorized to launch',
    });
  });

  it('turns True once registrations push the failures out of the last four outcomes', () => {
    const claims = [unregistered('a', 10), unregistered('b', 20), registered('r', 30), registered('s', 40)];
    expect(registrationHealthy(pool, nodeClass, claims).status).toBe('False');
    claims.push(registered('t', 50));
    expect(registrationHealthy(pool, nodeClass, claims)).toEqual({
      type: 'NodeRegistrationHealthy',
      status: 'True',
      reason: 'NodeRegistrationHealthy',
      message: '',
    });
    // One failure of the last four leaves a healthy pool healthy.
    expect(registrationHealthy(pool, nodeClass, [registered('r', 30), unregistered('a', 40)]).status).toBe('True');
  });

  it('counts only the pool and the specs it has now: a changed NodePool or EC2NodeClass starts over', () => {
    const failures = [unregistered('a', 10), unregistered('b', 20)];
    const other = failures.map((c) => ({ ...c, nodePool: 'other' }));
    expect(registrationHealthy(pool, nodeClass, other).status).toBe('Unknown');
    const changedPool = testNodePool('default', undefined, { terminationGracePeriod: '1h' });
    expect(registrationHealthy(changedPool, nodeClass, failures).status).toBe('Unknown');
    const changedClass = ec2NodeClass({ userData: 'echo changed' });
    expect(registrationHealthy(pool, changedClass, failures).status).toBe('Unknown');
  });

  it('reads a registered claim as a success whatever happened to it later, and a claim not yet done as nothing', () => {
    const later = {
      ...registered('r', 10),
      state: 'Terminated' as const,
      failure: { reason: 'NodeLost', message: '' },
    };
    expect(registrationOutcome(later)).toMatchObject({ ok: true, at: minute(10) });
    expect(registrationOutcome(nodeClaim({ state: 'Launched', stateTimes: { Launched: minute(1) } }))).toBeUndefined();
  });
});
