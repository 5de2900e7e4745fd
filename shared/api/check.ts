// Typed checks over parsed YAML (`unknown`). Each records a problem at a field path and returns the value only when
// it has the expected shape, so validators can keep going and report every mistake in a document.
import type { Problems } from './problems';
import { parseDuration, parseQuantity } from './quantity';

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A short rendering of a bad value for messages: strings quoted, long values cut. */
export function show(v: unknown): string {
  const text = v === undefined ? 'nothing' : JSON.stringify(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export function expectObject(p: Problems, path: string, v: unknown, required = false): Obj | undefined {
  if (v === undefined || v === null) {
    if (required) p.error(path, 'required');
    return undefined;
  }
  if (!isObj(v)) {
    p.error(path, `must be an object, got ${show(v)}`);
    return undefined;
  }
  return v;
}

export function expectArray(p: Problems, path: string, v: unknown, required = false): unknown[] | undefined {
  if (v === undefined || v === null) {
    if (required) p.error(path, 'required');
    return undefined;
  }
  if (!Array.isArray(v)) {
    p.error(path, `must be a list, got ${show(v)}`);
    return undefined;
  }
  return v;
}

export function expectString(p: Problems, path: string, v: unknown, required = false): string | undefined {
  if (v === undefined || v === null) {
    if (required) p.error(path, 'required');
    return undefined;
  }
  if (typeof v !== 'string') {
    p.error(path, `must be a string, got ${show(v)}`);
    return undefined;
  }
  if (required && v === '') {
    p.error(path, 'must not be empty');
    return undefined;
  }
  return v;
}

export function expectBool(p: Problems, path: string, v: unknown): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') {
    p.error(path, `must be true or false, got ${show(v)}`);
    return undefined;
  }
  return v;
}

export interface IntBounds {
  min?: number;
  max?: number;
  required?: boolean;
}

export function expectInt(p: Problems, path: string, v: unknown, bounds: IntBounds = {}): number | undefined {
  if (v === undefined || v === null) {
    if (bounds.required) p.error(path, 'required');
    return undefined;
  }
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    p.error(path, `must be an integer, got ${show(v)}`);
    return undefined;
  }
  const { min, max } = bounds;
  if ((min !== undefined && v < min) || (max !== undefined && v > max)) {
    const range =
      min !== undefined && max !== undefined
        ? `between ${min} and ${max}`
        : min !== undefined
          ? `at least ${min}`
          : `at most ${max}`;
    p.error(path, `must be ${range}, got ${v}`);
    return undefined;
  }
  return v;
}

export function expectEnum<T extends string>(
  p: Problems,
  path: string,
  v: unknown,
  allowed: readonly T[],
  required = false,
): T | undefined {
  if (v === undefined || v === null) {
    if (required) p.error(path, 'required');
    return undefined;
  }
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    p.error(path, `${show(v)} is not one of ${allowed.join(', ')}`);
    return undefined;
  }
  return v as T;
}

/** A map whose values must all be strings (labels, annotations, tags, selectors). */
export function expectStringMap(p: Problems, path: string, v: unknown): Record<string, string> | undefined {
  const o = expectObject(p, path, v);
  if (!o) return undefined;
  let ok = true;
  for (const [k, val] of Object.entries(o)) {
    if (typeof val !== 'string') {
      p.error(`${path}[${JSON.stringify(k)}]`, `must be a string, got ${show(val)} (quote it in YAML)`);
      ok = false;
    }
  }
  return ok ? (o as Record<string, string>) : undefined;
}

export function expectQuantity(p: Problems, path: string, v: unknown, allowNegative = false): boolean {
  if (v === undefined || v === null) return true;
  if (typeof v !== 'string' && typeof v !== 'number') {
    p.error(path, `must be a quantity (for example 500m, 2, 512Mi, 1Gi), got ${show(v)}`);
    return false;
  }
  let value: number;
  try {
    value = parseQuantity(v);
  } catch (err) {
    p.error(path, err instanceof Error ? err.message : `${show(v)} is not a valid quantity`);
    return false;
  }
  if (!allowNegative && value < 0) {
    p.error(path, `must not be negative, got ${show(v)}`);
    return false;
  }
  return true;
}

export function expectQuantityMap(p: Problems, path: string, v: unknown): boolean {
  const o = expectObject(p, path, v);
  if (!o) return v === undefined || v === null;
  let ok = true;
  for (const [k, q] of Object.entries(o)) {
    const at = `${path}[${JSON.stringify(k)}]`;
    if (q === null || q === undefined) {
      // An empty value in a resource map is not "absent": the API server refuses it, and the engine cannot read it.
      p.error(at, 'must be a quantity (for example 500m, 2, 512Mi, 1Gi), got null');
      ok = false;
    } else ok = expectQuantity(p, at, q) && ok;
  }
  return ok;
}

/** A Go duration ("30s", "1h30m"), or "Never" where the field allows it. */
export function expectDuration(p: Problems, path: string, v: unknown, allowNever: boolean): string | undefined {
  if (v === undefined || v === null) return undefined;
  const hint = allowNever ? 'for example 30s, 5m, 720h or Never' : 'for example 30s, 5m or 720h';
  if (typeof v !== 'string') {
    p.error(path, `must be a duration string (${hint}), got ${show(v)}`);
    return undefined;
  }
  const text = v.trim();
  if (text === 'Never' && allowNever) return v;
  // A bare number has no unit in Go and is rejected there too (except "0").
  const invalid = text === 'Never' || text === '' || (/^\d+(\.\d+)?$/.test(text) && text !== '0');
  let parsed = false;
  if (!invalid) {
    try {
      parseDuration(text);
      parsed = true;
    } catch {
      parsed = false;
    }
  }
  if (!parsed) {
    p.error(path, `${show(v)} is not a valid duration (${hint})`);
    return undefined;
  }
  return v;
}

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Why a label key (or taint key) is malformed, or undefined when it is a valid qualified name. */
export function labelKeyProblem(k: string): string | undefined {
  const slash = k.lastIndexOf('/');
  const prefix = slash >= 0 ? k.slice(0, slash) : undefined;
  const name = slash >= 0 ? k.slice(slash + 1) : k;
  if (prefix !== undefined && (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    return `${show(k)} has an invalid prefix: it must be a lowercase DNS subdomain such as example.com`;
  }
  if (name.length === 0 || name.length > 63 || !QUALIFIED_NAME.test(name)) {
    return `${show(k)} is not a valid label key: the name part must be 1-63 characters of letters, digits, '-', '_' or '.', starting and ending with a letter or digit`;
  }
  return undefined;
}

export function labelValueProblem(v: string): string | undefined {
  if (v.length > 63 || !LABEL_VALUE.test(v)) {
    return `${show(v)} is not a valid label value: at most 63 characters of letters, digits, '-', '_' or '.', starting and ending with a letter or digit`;
  }
  return undefined;
}

/** Labels: string values, valid keys and values. */
export function expectLabels(p: Problems, path: string, v: unknown): Record<string, string> | undefined {
  const o = expectObject(p, path, v);
  if (!o) return undefined;
  let ok = true;
  for (const [k, val] of Object.entries(o)) {
    const kp = labelKeyProblem(k);
    if (kp) p.error(`${path}[${JSON.stringify(k)}]`, kp);
    if (typeof val !== 'string') {
      p.error(`${path}[${JSON.stringify(k)}]`, `must be a string, got ${show(val)} (quote it in YAML)`);
      ok = false;
      continue;
    }
    const vp = labelValueProblem(val);
    if (vp) p.error(`${path}[${JSON.stringify(k)}]`, vp);
    ok = ok && !kp && !vp;
  }
  return ok ? (o as Record<string, string>) : undefined;
}
