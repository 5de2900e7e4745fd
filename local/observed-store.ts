// The store as the handlers see it in the local pipeline: the real one, with claim writes reported as they happen,
// so the timeline shows a claim before the instance launched for it.
import type { DecisionRecord, NodeClaim, NodeClaimState } from '../shared/api/nodeclaim';
import type { SweepCursor } from '../shared/api/sweep-cursor';
import type { UnavailableOffering } from '../shared/catalog/types';
import type { ClaimFilter, NodeClaimStore } from '../shared/ports';

export class ObservedStore implements NodeClaimStore {
  constructor(
    readonly inner: NodeClaimStore,
    private readonly onWrite: (claim: NodeClaim) => void,
  ) {}

  async create(claim: NodeClaim): Promise<NodeClaim> {
    const created = await this.inner.create(claim);
    this.onWrite(created);
    return created;
  }

  get(name: string) {
    return this.inner.get(name);
  }

  list(filter?: ClaimFilter) {
    return this.inner.list(filter);
  }

  getByInstanceId(instanceId: string) {
    return this.inner.getByInstanceId(instanceId);
  }

  async transition(claim: NodeClaim, to: NodeClaimState, patch?: Partial<NodeClaim>): Promise<NodeClaim> {
    const moved = await this.inner.transition(claim, to, patch);
    this.onWrite(moved);
    return moved;
  }

  update(claim: NodeClaim, patch: Partial<NodeClaim>) {
    return this.inner.update(claim, patch);
  }

  delete(claim: NodeClaim) {
    return this.inner.delete(claim);
  }

  markUnavailable(offering: UnavailableOffering) {
    return this.inner.markUnavailable(offering);
  }

  listUnavailable(now: number) {
    return this.inner.listUnavailable(now);
  }

  putDecision(record: DecisionRecord) {
    return this.inner.putDecision(record);
  }

  listDecisions(nodeClaim: string) {
    return this.inner.listDecisions(nodeClaim);
  }

  async getSweepCursor(): Promise<SweepCursor | undefined> {
    return this.inner.getSweepCursor?.();
  }

  async putSweepCursor(cursor: SweepCursor | undefined): Promise<void> {
    await this.inner.putSweepCursor?.(cursor);
  }
}
