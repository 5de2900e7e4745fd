// client-node deserializes into model classes with Date fields and explicit `undefined` properties. The engine's
// shapes are plain JSON with ISO strings, and dropping the undefined slots is most of the memory saving at 30k pods.

export type Plain = string | number | boolean | null | Plain[] | { [key: string]: Plain };

export function plain<T>(value: unknown): T {
  return toPlain(value) as T;
}

function toPlain(value: unknown): Plain | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((v) => toPlain(v) ?? null);
  if (typeof value === 'object') {
    const out: { [key: string]: Plain } = {};
    for (const [k, v] of Object.entries(value)) {
      const p = toPlain(v);
      if (p !== undefined) out[k] = p;
    }
    return out;
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return undefined;
}

/** Picks the listed keys that are present, as a plain object. */
export function pick<T extends object, K extends keyof T>(source: T | undefined, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  if (!source) return out;
  for (const k of keys) if (source[k] !== undefined) out[k] = source[k];
  return out;
}
