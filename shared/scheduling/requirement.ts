// One node-label requirement as a set of allowed values. A requirement is either a finite set ("In a, b") or the
// complement of one ("NotIn a", "Exists"), optionally bounded by integer limits (Gt/Lt/Gte/Lte). Every operator maps
// onto this one shape, so intersection is a single rule instead of a table of operator pairs.
import type { NodeSelectorOperator } from '../api/kube';

export class Requirement {
  constructor(
    readonly key: string,
    /** True: every value except `values`. False: exactly `values`. */
    readonly complement: boolean,
    readonly values: ReadonlySet<string>,
    /** Exclusive integer bounds; a value outside them (or not an integer) is not allowed. */
    readonly greaterThan?: number,
    readonly lessThan?: number,
    readonly minValues?: number,
  ) {}

  static of(key: string, operator: NodeSelectorOperator, values: readonly string[] = [], minValues?: number) {
    switch (operator) {
      case 'In':
        return new Requirement(key, false, new Set(values), undefined, undefined, minValues).listedAs(values);
      case 'NotIn':
        return new Requirement(key, true, new Set(values), undefined, undefined, minValues).listedAs(values);
      case 'Exists':
        return new Requirement(key, true, new Set(), undefined, undefined, minValues);
      case 'DoesNotExist':
        return new Requirement(key, false, new Set(), undefined, undefined, minValues);
      case 'Gt':
        return new Requirement(key, true, new Set(), intValue(key, operator, values), undefined, minValues);
      case 'Gte':
        return new Requirement(key, true, new Set(), intValue(key, operator, values) - 1, undefined, minValues);
      case 'Lt':
        return new Requirement(key, true, new Set(), undefined, intValue(key, operator, values), minValues);
      case 'Lte':
        return new Requirement(key, true, new Set(), undefined, intValue(key, operator, values) + 1, minValues);
    }
  }

  /** The values sorted (as `Array.prototype.sort` orders strings), kept once sorted: a requirement never changes, and
   * claims share most of theirs, so writing each claim's requirements out sorted the same values again and again. */
  private sortedValues: readonly string[] | undefined;

  /** Keeps `values` as the sorted list when they already are in that order without repeats (a claim's instance
   * types are listed so, nodeclaim.ts finalizeClaim), which spares sorting them again to write them out. */
  private listedAs(values: readonly string[]): this {
    if (values.length < 2) return this;
    for (let i = 1; i < values.length; i++) if (!((values[i - 1] as string) < (values[i] as string))) return this;
    this.sortedValues = values.slice();
    return this;
  }

  /** The values in sorted order (read-only: shared by every caller). */
  sorted(): readonly string[] {
    this.sortedValues ??= [...this.values].sort();
    return this.sortedValues;
  }

  get bounded(): boolean {
    return this.greaterThan !== undefined || this.lessThan !== undefined;
  }

  /** Whether a node whose label has this value (undefined: the label is absent) satisfies the requirement. */
  has(value: string | undefined): boolean {
    if (value === undefined) return this.allowsAbsent();
    if (this.bounded && !withinBounds(value, this.greaterThan, this.lessThan)) return false;
    return this.complement ? !this.values.has(value) : this.values.has(value);
  }

  /** NotIn and DoesNotExist are satisfied by a node without the label; In, Exists, Gt and Lt are not. */
  allowsAbsent(): boolean {
    if (this.bounded) return false;
    return this.complement ? this.values.size > 0 : this.values.size === 0;
  }

  /** Number of allowed values; Infinity for complements. */
  get size(): number {
    return this.complement ? Number.POSITIVE_INFINITY : this.values.size;
  }

  operator(): NodeSelectorOperator {
    if (this.complement) {
      if (this.values.size > 0) return 'NotIn';
      if (this.greaterThan !== undefined) return 'Gt';
      if (this.lessThan !== undefined) return 'Lt';
      return 'Exists';
    }
    return this.values.size > 0 ? 'In' : 'DoesNotExist';
  }

  intersect(other: Requirement): Requirement {
    const gt = maxDefined(this.greaterThan, other.greaterThan);
    const lt = minDefined(this.lessThan, other.lessThan);
    const minValues = maxDefined(this.minValues, other.minValues);
    if (gt !== undefined && lt !== undefined && lt - gt <= 1) {
      return new Requirement(this.key, false, new Set(), undefined, undefined, minValues);
    }
    if (this.complement && other.complement) {
      const values = new Set(this.values);
      for (const v of other.values) values.add(v);
      return new Requirement(this.key, true, values, gt, lt, minValues);
    }
    const [finite, rest] = this.complement ? [other, this] : [this, other];
    const values = new Set<string>();
    for (const v of finite.values) {
      if (rest.complement ? !rest.values.has(v) : rest.values.has(v)) {
        if (withinBounds(v, gt, lt)) values.add(v);
      }
    }
    return new Requirement(this.key, false, values, undefined, undefined, minValues);
  }

  /** True when some value (or, for two label-absent-tolerant requirements, the absence of the label) satisfies both. */
  intersects(other: Requirement): boolean {
    if (this.allowsAbsent() && other.allowsAbsent()) return true;
    return this.intersect(other).size > 0;
  }

  /** The requirement back in Kubernetes form. Bounded complements become Gt/Lt pairs. */
  toNodeSelector(): { key: string; operator: NodeSelectorOperator; values?: string[]; minValues?: number }[] {
    if (!this.complement) {
      const values = this.sorted().slice();
      return [
        withMinValues(
          values.length > 0 ? { key: this.key, operator: 'In', values } : { key: this.key, operator: 'DoesNotExist' },
          this.minValues,
        ),
      ] as ReturnType<Requirement['toNodeSelector']>;
    }
    const out: ReturnType<Requirement['toNodeSelector']> = [];
    if (this.values.size > 0) out.push({ key: this.key, operator: 'NotIn', values: this.sorted().slice() });
    if (this.greaterThan !== undefined) out.push({ key: this.key, operator: 'Gt', values: [String(this.greaterThan)] });
    if (this.lessThan !== undefined) out.push({ key: this.key, operator: 'Lt', values: [String(this.lessThan)] });
    if (out.length === 0) out.push({ key: this.key, operator: 'Exists' });
    const first = out[0];
    if (first && this.minValues !== undefined) first.minValues = this.minValues;
    return out;
  }

  /** The text, kept once written: a requirement never changes, and price tables and cache keys read it per claim. */
  private text: string | undefined;

  toString(): string {
    this.text ??= this.write();
    return this.text;
  }

  private write(): string {
    if (!this.complement) return this.values.size === 0 ? 'DoesNotExist' : `[${this.sorted().join(', ')}]`;
    const parts: string[] = [];
    if (this.values.size > 0) parts.push(`not [${this.sorted().join(', ')}]`);
    if (this.greaterThan !== undefined) parts.push(`> ${this.greaterThan}`);
    if (this.lessThan !== undefined) parts.push(`< ${this.lessThan}`);
    return parts.length === 0 ? 'Exists' : parts.join(' and ');
  }
}

export class RequirementError extends Error {}

/** `r` with `minValues` when there is one (a function of its own: a closure per call was written out per claim). */
function withMinValues<T extends object>(r: T, minValues: number | undefined): T {
  return minValues !== undefined ? { ...r, minValues } : r;
}

function intValue(key: string, operator: string, values: readonly string[]): number {
  const raw = values[0];
  const n = raw === undefined ? Number.NaN : Number(raw);
  if (values.length !== 1 || !Number.isInteger(n)) {
    throw new RequirementError(`${key} ${operator} needs exactly one integer value, got [${values.join(', ')}]`);
  }
  return n;
}

function withinBounds(value: string, gt: number | undefined, lt: number | undefined): boolean {
  if (gt === undefined && lt === undefined) return true;
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n)) return false;
  return (gt === undefined || n > gt) && (lt === undefined || n < lt);
}

function maxDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.max(a, b);
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}
