// An in-memory NodeClaimStore with the DynamoDB store's semantics: every write is conditional on the version the
// caller read (a lost race is ConflictError, never an overwrite), the state machine is enforced before any write,
// unavailable offerings and Terminated claims past their retention expire in the read (a claim stays for get, as in
// DynamoDB until its TTL deletes it), and decisions are found per claim. The test bed for the control plane.
import {
  assertTransition,
  claimExpiresAt,
  type DecisionRecord,
  type NodeClaim,
  type NodeClaimState,
} from '../api/nodeclaim';
import type { SweepCursor } from '../api/sweep-cursor';
import { unavailableKey } from '../catalog/offerings';
import type { UnavailableOffering } from '../catalog/types';
import { ConflictError } from '../errors';
import { type ClaimFilter, type Clock, type NodeClaimStore, systemClock } from '../ports';

const IMMUTABLE: readonly (keyof NodeClaim)[] = ['name', 'uid', 'cluster', 'version', 'state', 'createdAt'];

const clone = <T>(value: T): T => structuredClone(value);

/**
 * Freezes `value` and everything in it. Claims are stored frozen so every read hands out the stored object itself:
 * no caller can change what is stored, and only writes copy (docs/performance.md, "Whole command").
 */
function frozen<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const child of Object.values(value)) frozen(child);
  return value;
}

export interface MemoryNodeClaimStoreOptions {
  cluster?: string;
  clock?: Clock;
}

export class MemoryNodeClaimStore implements NodeClaimStore {
  private readonly claims = new Map<string, NodeClaim>();
  private readonly offerings = new Map<string, UnavailableOffering>();
  private readonly decisions: DecisionRecord[] = [];
  private sweepCursor: SweepCursor | undefined;
  private readonly cluster: string | undefined;
  private readonly clock: Clock;
  /** Every successful write, in order: tests assert on races with it. */
  readonly writes: { op: 'create' | 'transition' | 'update' | 'delete'; name: string; state: NodeClaimState }[] = [];

  constructor(options: MemoryNodeClaimStoreOptions = {}) {
    this.cluster = options.cluster;
    this.clock = options.clock ?? systemClock;
  }

  async create(claim: NodeClaim): Promise<NodeClaim> {
    await tick();
    if (this.claims.has(claim.name)) throw new ConflictError(`NodeClaim ${claim.name} already exists`);
    const stored: NodeClaim = frozen({
      ...clone(claim),
      ...(this.cluster ? { cluster: this.cluster } : {}),
      stateTimes: { ...claim.stateTimes, [claim.state]: claim.stateTimes[claim.state] ?? claim.createdAt },
    });
    this.claims.set(claim.name, stored);
    this.writes.push({ op: 'create', name: claim.name, state: stored.state });
    return stored;
  }

  async get(name: string): Promise<NodeClaim | undefined> {
    await tick();
    return this.claims.get(name);
  }

  async list(filter: ClaimFilter = {}): Promise<NodeClaim[]> {
    await tick();
    const now = this.clock.now();
    return [...this.claims.values()]
      .filter((c) => (claimExpiresAt(c) ?? Number.POSITIVE_INFINITY) > now)
      .filter((c) => !filter.states || filter.states.includes(c.state))
      .filter((c) => filter.nodePool === undefined || c.nodePool === filter.nodePool);
  }

  async getByInstanceId(instanceId: string): Promise<NodeClaim | undefined> {
    await tick();
    for (const c of this.claims.values()) if (c.instanceId === instanceId) return c;
    return undefined;
  }

  async transition(claim: NodeClaim, to: NodeClaimState, patch: Partial<NodeClaim> = {}): Promise<NodeClaim> {
    assertTransition(claim.name, claim.state, to);
    await tick();
    const next = this.patched(claim, patch);
    next.state = to;
    next.stateTimes = { ...next.stateTimes, [to]: new Date(this.clock.now()).toISOString() };
    return this.put(claim, next, 'transition');
  }

  async update(claim: NodeClaim, patch: Partial<NodeClaim>): Promise<NodeClaim> {
    await tick();
    return this.put(claim, this.patched(claim, patch), 'update');
  }

  async delete(claim: NodeClaim): Promise<void> {
    await tick();
    this.check(claim);
    this.claims.delete(claim.name);
    this.writes.push({ op: 'delete', name: claim.name, state: claim.state });
  }

  async markUnavailable(offering: UnavailableOffering): Promise<void> {
    await tick();
    this.offerings.set(unavailableKey(offering), { ...offering });
  }

  async listUnavailable(now: number): Promise<UnavailableOffering[]> {
    await tick();
    return [...this.offerings.values()].filter((o) => o.expiresAt > now).map((o) => ({ ...o }));
  }

  async putDecision(record: DecisionRecord): Promise<void> {
    await tick();
    this.decisions.push(clone({ ...record, ...(this.cluster ? { cluster: this.cluster } : {}) }));
  }

  async listDecisions(nodeClaim: string): Promise<DecisionRecord[]> {
    await tick();
    return this.decisions
      .filter((d) => d.nodeClaims.includes(nodeClaim))
      .sort((a, b) => a.at.localeCompare(b.at))
      .map(clone);
  }
  async getSweepCursor(): Promise<SweepCursor | undefined> {
    await tick();
    return this.sweepCursor ? clone(this.sweepCursor) : undefined;
  }

  async putSweepCursor(cursor: SweepCursor | undefined): Promise<void> {
    await tick();
    this.sweepCursor = cursor ? clone(cursor) : undefined;
  }

  /** Every decision recorded, oldest first. */
  allDecisions(): DecisionRecord[] {
    return this.decisions.map(clone);
  }

  private check(claim: NodeClaim): NodeClaim {
    const current = this.claims.get(claim.name);
    if (!current || current.version !== claim.version) {
      throw new ConflictError(`NodeClaim ${claim.name}: version ${claim.version} is stale or the claim is gone`);
    }
    return current;
  }

  private patched(claim: NodeClaim, patch: Partial<NodeClaim>): NodeClaim {
    // A stored (frozen) claim's parts are shared with the next version; a caller's own claim is copied first.
    const next = { ...(Object.isFrozen(claim) ? claim : clone(claim)), ...clone(patch) } as NodeClaim;
    for (const k of IMMUTABLE) (next as unknown as Record<string, unknown>)[k] = claim[k];
    return next;
  }

  private put(claim: NodeClaim, next: NodeClaim, op: 'transition' | 'update'): NodeClaim {
    const current = this.check(claim);
    // The state machine is checked against what is stored, not only the caller's copy.
    if (op === 'transition' && current.state !== claim.state) throw new ConflictError(`NodeClaim ${claim.name} moved`);
    next.version = current.version + 1;
    this.claims.set(claim.name, frozen(next));
    this.writes.push({ op, name: claim.name, state: next.state });
    return next;
  }
}

/** Yields to the event loop like a network call would, so concurrent callers really interleave in tests. */
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
