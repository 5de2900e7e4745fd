// The forwarder's whole memory: for each watched resource, the keys it knows with a fingerprint, and an outbox of
// references not yet sent. Pure (no timers, no I/O) so tests and the local pipeline can feed it watch events.
import type { ClusterMessageKind, ObjectRef } from '../shared/messages';
import type { Slim, WatchedResource } from './slim';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

const MESSAGE_KIND: Record<WatchedResource, ClusterMessageKind> = {
  pods: 'PodsPending',
  nodes: 'NodeChanged',
  nodepools: 'NodePoolChanged',
  ec2nodeclasses: 'NodePoolChanged',
  nodeoverlays: 'NodePoolChanged',
  nodeclaims: 'NodeClaimDeleted',
};

/** Resources whose news is an object entering a state (a pod becoming pending, a NodeClaim getting its deletion
 * mark): only the objects in that state are remembered, so memory follows them, not the cluster's size. */
const ENTERING: ReadonlySet<WatchedResource> = new Set(['pods', 'nodeclaims']);
const ENTERING_KINDS: ReadonlySet<ClusterMessageKind> = new Set(['PodsPending', 'NodeClaimDeleted']);

/** NodePools, EC2NodeClasses and NodeOverlays share a message kind but not a namespace of names. */
const OUTBOX_PREFIX: Partial<Record<WatchedResource, string>> = {
  ec2nodeclasses: 'ec2nodeclass:',
  nodeoverlays: 'nodeoverlay:',
};

export type Outbox = Map<ClusterMessageKind, Map<string, ObjectRef>>;

export class ChangeTracker {
  private readonly known = new Map<WatchedResource, Map<string, string>>();
  private outbox: Outbox = new Map();

  /** Applies one watch event; true when it added something to send. */
  onEvent(resource: WatchedResource, type: WatchEventType, slim: Slim): boolean {
    const known = this.knownFor(resource);
    const messageKind = MESSAGE_KIND[resource];
    const previous = known.get(slim.key);
    if (ENTERING.has(resource)) {
      // Only a pod that becomes pending is news; the scheduler's periodic retries of a pod we already reported
      // are not. A pod that stops being pending leaves both the known set and the outbox. Likewise a NodeClaim's
      // deletion mark is news once; the object going away (its finalizer off) needs no message.
      if (type === 'DELETED' || !slim.relevant) {
        known.delete(slim.key);
        this.outbox.get(messageKind)?.delete(slim.key);
        return false;
      }
      if (previous !== undefined) return false;
      known.set(slim.key, slim.fingerprint);
      return this.enqueue(messageKind, resource, slim);
    }
    if (type === 'DELETED') {
      known.delete(slim.key);
      return this.enqueue(messageKind, resource, slim);
    }
    if (previous === slim.fingerprint) return false;
    known.set(slim.key, slim.fingerprint);
    return this.enqueue(messageKind, resource, slim);
  }

  /**
   * Replaces what is known about a resource with a fresh list. Objects that vanished while the watch was down
   * count as deleted and changed ones as modified. With `resendAll` (start-up, recovery after an outage or a 410),
   * every pending pod and every NodeClaim being deleted is queued again: the receiver may have missed anything while
   * we were blind.
   */
  onRelist(resource: WatchedResource, items: Slim[], options: { resendAll: boolean }): boolean {
    const known = this.knownFor(resource);
    const seen = new Set<string>();
    let added = false;
    for (const slim of items) {
      seen.add(slim.key);
      if (options.resendAll && ENTERING.has(resource) && slim.relevant) known.delete(slim.key);
      added = this.onEvent(resource, known.has(slim.key) ? 'MODIFIED' : 'ADDED', slim) || added;
    }
    for (const key of [...known.keys()]) {
      if (seen.has(key)) continue;
      const [namespace, name] = key.includes('/') ? key.split('/', 2) : [undefined, key];
      const ref: ObjectRef = { ...(namespace ? { namespace } : {}), name: name ?? key };
      added = this.onEvent(resource, 'DELETED', { key, ref, relevant: false, fingerprint: '' }) || added;
    }
    return added;
  }

  /** Removes and returns everything waiting to be sent. */
  takeOutbox(): Outbox {
    const taken = this.outbox;
    this.outbox = new Map();
    return taken;
  }

  /** Puts back an outbox whose send failed, without overwriting newer entries for the same keys. */
  restore(failed: Outbox): void {
    for (const [kind, refs] of failed) {
      const current = this.outbox.get(kind) ?? new Map<string, ObjectRef>();
      for (const [key, ref] of refs) {
        // A pod that stopped being pending (a NodeClaim object that went) while the send was in flight must not come
        // back.
        if (ENTERING_KINDS.has(kind) && !this.knownFor(kind === 'PodsPending' ? 'pods' : 'nodeclaims').has(key)) {
          continue;
        }
        if (!current.has(key)) current.set(key, ref);
      }
      if (current.size > 0) this.outbox.set(kind, current);
    }
  }

  get outboxSize(): number {
    let n = 0;
    for (const refs of this.outbox.values()) n += refs.size;
    return n;
  }

  /** How many objects of a resource are known (for pods: pending ones; for NodeClaims: ones being deleted). */
  knownCount(resource: WatchedResource): number {
    return this.knownFor(resource).size;
  }

  private enqueue(kind: ClusterMessageKind, resource: WatchedResource, slim: Slim): boolean {
    let refs = this.outbox.get(kind);
    if (!refs) {
      refs = new Map();
      this.outbox.set(kind, refs);
    }
    refs.set(`${OUTBOX_PREFIX[resource] ?? ''}${slim.key}`, slim.ref);
    return true;
  }

  private knownFor(resource: WatchedResource): Map<string, string> {
    let known = this.known.get(resource);
    if (!known) {
      known = new Map();
      this.known.set(resource, known);
    }
    return known;
  }
}
