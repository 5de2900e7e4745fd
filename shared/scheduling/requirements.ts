// A set of requirements keyed by label, intersected key by key. Mirrors Karpenter's rules for when a pod's
// requirements are compatible with a node's: custom labels must be declared, well-known labels may be undefined.
import type { NodeSelectorRequirementWithMinValues } from '../api/karpenter';
import type { NodeSelectorRequirement } from '../api/kube';
import { Requirement } from './requirement';

export class Requirements {
  private readonly map: Map<string, Requirement>;
  /** `toString()`, kept until the next `add`: cache keys read it for every claim opened. */
  private text: string | undefined;
  /** The keys in sorted order, kept until the next `add` (writing a claim out lists its requirements by key). */
  private sortedKeys: string[] | undefined;
  /**
   * The requirements in insertion order, kept until the next `add`. The hot readers (a claim's `canAdd`, the
   * compatibility test) walk this array by index: walking the Map allocates an iterator result per entry in code
   * not yet optimized, which is most of a cold solve (docs/performance.md, "The cold 5k rows").
   */
  private listed: Requirement[] | undefined;

  /** `map`: taken as it is, not copied (clone passes its own copy). */
  constructor(map?: Map<string, Requirement>) {
    this.map = map ?? new Map();
  }

  static from(list: readonly (NodeSelectorRequirement | NodeSelectorRequirementWithMinValues)[] = []): Requirements {
    const out = new Requirements();
    for (const r of list) {
      out.add(Requirement.of(r.key, r.operator, r.values ?? [], 'minValues' in r ? r.minValues : undefined));
    }
    return out;
  }

  static fromLabels(labels: Record<string, string> | undefined): Requirements {
    const out = new Requirements();
    if (labels) for (const [k, v] of Object.entries(labels)) out.add(Requirement.of(k, 'In', [v]));
    return out;
  }

  clone(): Requirements {
    const out = new Requirements(new Map(this.map));
    out.text = this.text;
    out.sortedKeys = this.sortedKeys;
    out.listed = this.listed;
    return out;
  }

  add(r: Requirement): this {
    this.text = undefined;
    this.listed = undefined;
    const existing = this.map.get(r.key);
    if (!existing && this.sortedKeys) this.sortedKeys = withKey(this.sortedKeys, r.key);
    this.map.set(r.key, existing ? existing.intersect(r) : r);
    return this;
  }

  addAll(other: Requirements): this {
    const list = other.list();
    for (let i = 0; i < list.length; i++) this.add(list[i] as Requirement);
    return this;
  }

  get(key: string): Requirement | undefined {
    return this.map.get(key);
  }

  has(key: string): boolean {
    return this.map.has(key);
  }

  keys(): IterableIterator<string> {
    return this.map.keys();
  }

  values(): IterableIterator<Requirement> {
    return this.map.values();
  }

  /** The requirements in insertion order, as `values()` gives them (read-only: shared until the next `add`). */
  list(): readonly Requirement[] {
    this.listed ??= [...this.map.values()];
    return this.listed;
  }

  get size(): number {
    return this.map.size;
  }

  /**
   * Why `incoming` (a pod's requirements) cannot be met by nodes with these requirements, or undefined when it can.
   * A key only `incoming` constrains must be NotIn/DoesNotExist or listed in `allowUndefined` (labels every node
   * gets from its instance type); otherwise no node would carry it.
   */
  incompatibility(incoming: Requirements, allowUndefined?: (key: string) => boolean): string | undefined {
    const list = incoming.list();
    for (let i = 0; i < list.length; i++) {
      const req = list[i] as Requirement;
      const key = req.key;
      const mine = this.map.get(key);
      if (!mine) {
        if (req.allowsAbsent() || allowUndefined?.(key)) continue;
        return `label "${key}" does not have known values (no NodePool defines it)`;
      }
      if (!mine.intersects(req)) {
        return `incompatible requirement ${key}: pod requires ${req}, nodepool allows ${mine}`;
      }
    }
    return undefined;
  }

  /** Whether every requirement is satisfied by a node with exactly these labels. */
  matchesLabels(labels: Record<string, string>): boolean {
    const list = this.list();
    for (let i = 0; i < list.length; i++) {
      const req = list[i] as Requirement;
      if (!req.has(labels[req.key])) return false;
    }
    return true;
  }

  firstUnmatchedLabel(labels: Record<string, string>): Requirement | undefined {
    for (const req of this.map.values()) if (!req.has(labels[req.key])) return req;
    return undefined;
  }

  /** Labels implied by single-valued In requirements: these become the node's labels. */
  singleValueLabels(): Record<string, string> {
    const out: Record<string, string> = {};
    const list = this.list();
    for (let i = 0; i < list.length; i++) {
      const r = list[i] as Requirement;
      if (!r.complement && r.values.size === 1) out[r.key] = r.values.values().next().value as string;
    }
    return out;
  }

  toNodeSelector(): NodeSelectorRequirementWithMinValues[] {
    const out: NodeSelectorRequirementWithMinValues[] = [];
    this.sortedKeys ??= [...this.map.keys()].sort();
    for (const key of this.sortedKeys) out.push(...(this.map.get(key) as Requirement).toNodeSelector());
    return out;
  }

  toString(): string {
    this.text ??= [...this.map.values()].map((r) => `${r.key} ${r}`).join(', ');
    return this.text;
  }
}

/** The requirements narrowed by `extra`, or undefined when `extra` changes nothing (the common case). */
export function narrowed(reqs: Requirements, extra: readonly Requirement[]): Requirements | undefined {
  let out: Requirements | undefined;
  for (let i = 0; i < extra.length; i++) {
    const r = extra[i] as Requirement;
    const cur = (out ?? reqs).get(r.key);
    const next = cur ? cur.intersect(r) : r;
    if (cur && sameRequirement(cur, next)) continue;
    out ??= reqs.clone();
    out.add(r);
  }
  return out;
}

function sameRequirement(a: Requirement, b: Requirement): boolean {
  return (
    a === b ||
    (a.complement === b.complement &&
      a.values.size === b.values.size &&
      a.greaterThan === b.greaterThan &&
      a.lessThan === b.lessThan &&
      a.minValues === b.minValues)
  );
}

/** `sorted` (ascending, as `Array.prototype.sort` orders strings) with `key`, not in it, put in its place. */
function withKey(sorted: readonly string[], key: string): string[] {
  let at = 0;
  while (at < sorted.length && (sorted[at] as string) < key) at++;
  return [...sorted.slice(0, at), key, ...sorted.slice(at)];
}
