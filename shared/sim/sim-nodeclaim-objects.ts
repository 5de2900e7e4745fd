// The karpenter.sh/v1 NodeClaim objects the mirror writes (shared/controllers/nodeclaim-mirror.ts), held by name as
// the API server holds them: a create of an existing name conflicts, the server keeps uid, creationTimestamp,
// finalizers and the deletion mark, and bumps resourceVersion. Readers get copies.
import { FinalizerTermination } from '../api/labels';
import { lacksFinalizer, type NodeClaimObject } from '../api/nodeclaim-object';

export class SimNodeClaimObjects {
  private readonly objects = new Map<string, NodeClaimObject>();
  private version = 0;

  /** `now` stamps a created object; `changed` hears of a deletion mark or a removal (the mirror's own writes are
   * not reported: the forwarder's watch ignores them). */
  constructor(
    private readonly now: () => string,
    private readonly changed: (name: string) => void,
  ) {}

  list(): NodeClaimObject[] {
    return [...this.objects.values()].map((o) => structuredClone(o));
  }

  /** One object as stored, for the watch that reports it (local/forwarder-feed.ts). */
  get(name: string): NodeClaimObject | undefined {
    const o = this.objects.get(name);
    return o ? structuredClone(o) : undefined;
  }

  write(desired: NodeClaimObject, current: NodeClaimObject | undefined): void {
    const name = desired.metadata.name;
    const existing = this.objects.get(name);
    if (!current && existing) throw new Error(`nodeclaims.karpenter.sh "${name}" already exists`);
    if (current && !existing) throw new Error(`nodeclaims.karpenter.sh "${name}" not found`);
    const resourceVersion = String(++this.version);
    // The server keeps the object's finalizers and deletion mark; ours is added unless the object is being deleted.
    const finalizers = existing
      ? [...(existing.metadata.finalizers ?? []), ...(lacksFinalizer(existing) ? [FinalizerTermination] : [])]
      : (desired.metadata.finalizers ?? []);
    this.objects.set(name, {
      ...structuredClone(desired),
      metadata: {
        ...structuredClone(desired.metadata),
        ...(finalizers.length ? { finalizers } : {}),
        ...(existing?.metadata.deletionTimestamp ? { deletionTimestamp: existing.metadata.deletionTimestamp } : {}),
        uid: existing?.metadata.uid ?? `nodeclaim-${resourceVersion}`,
        creationTimestamp: existing?.metadata.creationTimestamp ?? this.now(),
        resourceVersion,
      },
    });
  }

  delete(name: string): void {
    if (this.objects.delete(name)) this.changed(name);
  }

  /** `kubectl delete nodeclaim`: an object with finalizers is only marked until they are removed (delete takes
   * Karpless's off); one without goes at once. False when there is no such object. */
  requestDeletion(name: string): boolean {
    const o = this.objects.get(name);
    if (!o) return false;
    if (!o.metadata.finalizers?.length) this.objects.delete(name);
    else if (!o.metadata.deletionTimestamp) {
      o.metadata = { ...o.metadata, deletionTimestamp: this.now() };
    } else return true;
    this.changed(name);
    return true;
  }
}
