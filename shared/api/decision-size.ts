// A decision record's size cap (docs/aws.md, Decision records). DynamoDB refuses an item over 400 KB, and a record
// naming a thousand pods, moves and instance-type alternatives can pass that; the write would fail and the decision
// be lost. So a record is cut to DECISION_BUDGET_BYTES of JSON before it is stored: its longest lists lose their
// tails, then its longest strings, and what was cut is counted in `truncated` (path -> elements or characters
// dropped), so `karpless explain` says the record is partial and by how much.
import type { DecisionRecord } from './nodeclaim';

/** JSON bytes a stored decision may take: 350 KB leaves DynamoDB's 400 KB item limit room for the keys, the TTL and
 * the per-claim copy's sort key, and for DynamoDB's own encoding. */
export const DECISION_BUDGET_BYTES = 350 * 1024;

/** A string longer than this is cut once the lists are as short as they go. */
const MIN_STRING_CHARS = 256;

const encoder = new TextEncoder();
const bytesOf = (v: unknown): number => encoder.encode(JSON.stringify(v) ?? '').length;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

interface Slot {
  path: string;
  value: Json[] | string;
  set: (v: Json[] | string) => void;
}

/** Every list (or every string) under `value`, each with its path and a setter into its parent. */
function slots(value: Json, path: string, set: Slot['set'], out: Slot[], strings: boolean): Slot[] {
  if (typeof value === 'string') {
    if (strings) out.push({ path, value, set });
  } else if (Array.isArray(value)) {
    if (!strings) out.push({ path, value, set });
    value.forEach((v, i) => {
      slots(
        v,
        `${path}[${i}]`,
        (n) => {
          value[i] = n;
        },
        out,
        strings,
      );
    });
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      slots(
        v,
        `${path}.${k}`,
        (n) => {
          value[k] = n;
        },
        out,
        strings,
      );
    }
  }
  return out;
}

/**
 * The record, or a copy cut to fit `budget` bytes of JSON. Lists go first, the largest first, each keeping its head
 * (the chosen, cheapest, first-named items) and at least one element; then strings over MIN_STRING_CHARS, the longest
 * first; a record still over (keys alone too large) keeps its id, kind, time, claims and summary and drops its detail.
 */
export function capDecision(record: DecisionRecord, budget = DECISION_BUDGET_BYTES): DecisionRecord {
  if (bytesOf(record) <= budget) return record;
  const copy = JSON.parse(JSON.stringify(record)) as DecisionRecord & { [k: string]: Json };
  const truncated: Record<string, number> = { ...(record.truncated ?? {}) };
  const note = (path: string, n: number) => {
    truncated[path] = (truncated[path] ?? 0) + n;
  };
  const fits = () => bytesOf({ ...copy, truncated }) <= budget;
  const root = copy as unknown as { [k: string]: Json };
  const candidates = (strings: boolean) =>
    slots(
      { nodeClaims: root.nodeClaims as Json, summary: root.summary as Json, detail: root.detail as Json },
      '',
      () => {},
      [],
      strings,
    )
      .map((s) => ({ ...s, path: s.path.slice(1), size: bytesOf(s.value) }))
      .map((s) => ({ ...s, set: setterFor(root, s.path, s.set) }));
  // Lists: the largest first, dropping about as many elements as the excess needs, until none has two left.
  for (let guard = 0; !fits() && guard < 10_000; guard++) {
    const lists = candidates(false).filter(
      (s): s is typeof s & { value: Json[] } => Array.isArray(s.value) && s.value.length > 1,
    );
    const top = lists.sort((a, b) => b.size - a.size)[0];
    if (!top) break;
    const excess = bytesOf({ ...copy, truncated }) - budget;
    const perItem = top.size / top.value.length;
    const drop = Math.min(top.value.length - 1, Math.max(1, Math.ceil(excess / perItem)));
    top.set(top.value.slice(0, top.value.length - drop));
    note(top.path, drop);
  }
  // Strings: the longest first, down to MIN_STRING_CHARS.
  for (let guard = 0; !fits() && guard < 10_000; guard++) {
    const strings = candidates(true).filter(
      (s): s is typeof s & { value: string } => typeof s.value === 'string' && s.value.length > MIN_STRING_CHARS,
    );
    const top = strings.sort((a, b) => b.size - a.size)[0];
    if (!top) break;
    const excess = bytesOf({ ...copy, truncated }) - budget;
    const keep = Math.max(MIN_STRING_CHARS, top.value.length - excess - 1);
    top.set(top.value.slice(0, keep));
    note(top.path, top.value.length - keep);
  }
  if (!fits()) {
    note('detail', Object.keys(copy.detail).length);
    copy.detail = {};
  }
  return { ...copy, truncated };
}

/** Top-level fields are set on the record itself (the slot walk ran over a shallow view of it). */
function setterFor(root: { [k: string]: Json }, path: string, set: Slot['set']): Slot['set'] {
  const top = /^[a-zA-Z]+$/.test(path) ? path : undefined;
  return top
    ? (v) => {
        root[top] = v;
      }
    : set;
}
