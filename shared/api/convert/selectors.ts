// v1alpha1 selector maps (`{ "karpenter.sh/discovery": "x", "aws-ids": "subnet-1,subnet-2" }`) → v1 selector terms.
// Comma-separated values were alternatives in v1alpha1; in v1 each alternative is its own term.
import { isObj, type Obj, show } from '../check';
import type { Problems } from '../problems';

const ID_KEYS = ['aws-ids', 'aws::ids'];
const MAX_TERMS = 30;

const split = (v: string): string[] =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

/** Every combination of one value per key. */
function product(entries: [string, string[]][]): Record<string, string>[] {
  let out: Record<string, string>[] = [{}];
  for (const [k, values] of entries) out = out.flatMap((base) => values.map((v) => ({ ...base, [k]: v })));
  return out;
}

export interface SelectorOptions {
  /** Also read `aws::name` and `aws::owners` (the AMI selector). */
  ami?: boolean;
}

/** Converts a v1alpha1 selector at `path`; returns undefined (with an error) when it is not a string map. */
export function selectorTerms(p: Problems, path: string, v: unknown, options: SelectorOptions = {}): Obj[] | undefined {
  if (!isObj(v)) {
    p.error(path, v === undefined ? 'required' : `must be a map of tag keys to values, got ${show(v)}`);
    return undefined;
  }
  const tags: [string, string[]][] = [];
  let ids: string[] = [];
  let names: string[] = [];
  let owners: string[] = [];
  for (const [k, raw] of Object.entries(v)) {
    if (typeof raw !== 'string') {
      p.error(`${path}[${JSON.stringify(k)}]`, `must be a string, got ${show(raw)}`);
      return undefined;
    }
    if (ID_KEYS.includes(k)) ids = split(raw);
    else if (options.ami && k === 'aws::name') names = split(raw);
    else if (options.ami && k === 'aws::owners') owners = split(raw);
    else tags.push([k, raw === '*' ? ['*'] : split(raw)]);
  }
  if (ids.length > 0) {
    if (tags.length > 0 || names.length > 0 || owners.length > 0) {
      p.warn(path, 'ids cannot be combined with other fields in v1; only the ids are kept');
    }
    return ids.map((id) => ({ id }));
  }
  const tagSets = tags.length > 0 ? product(tags) : [undefined];
  const terms: Obj[] = [];
  for (const t of tagSets) {
    for (const name of names.length > 0 ? names : [undefined]) {
      for (const owner of owners.length > 0 ? owners : [undefined]) {
        const term: Obj = {};
        if (t) term.tags = t;
        if (name) term.name = name;
        if (owner) term.owner = owner;
        if (Object.keys(term).length > 0) terms.push(term);
      }
    }
  }
  if (terms.length > MAX_TERMS) {
    p.error(path, `expands to ${terms.length} selector terms; v1 allows at most ${MAX_TERMS}`);
    return undefined;
  }
  if (terms.length > 1) p.warn(path, `comma-separated values became ${terms.length} selector terms`);
  return terms;
}
