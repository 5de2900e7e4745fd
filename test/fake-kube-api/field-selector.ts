// The field selector subset the adapter and the forwarder send: `a.b=v`, `a.b==v`, `a.b!=v`, comma-joined; and the
// label selector subset (`k=v`, `k!=v`, comma-joined) the forwarder's NodeClaim watch sends.

type Clause = { path: string[]; value: string; negated: boolean };

/** Parses once; the returned predicate runs per object (lists of 30k pods evaluate it per page). */
export function compileFieldSelector(selector: string | null): (object: unknown) => boolean {
  if (!selector) return () => true;
  const clauses: Clause[] = selector.split(',').map((clause) => {
    const negated = clause.includes('!=');
    const [path = '', value = ''] = negated ? clause.split('!=') : clause.split(/==?/);
    return { path: path.split('.'), value, negated };
  });
  return (object) =>
    clauses.every(({ path, value, negated }) => {
      const actual = String(readPath(object, path) ?? '');
      return negated ? actual !== value : actual === value;
    });
}

export function matchesFieldSelector(object: unknown, selector: string | null): boolean {
  return compileFieldSelector(selector)(object);
}

function readPath(object: unknown, path: string[]): unknown {
  let cursor: unknown = object;
  for (const key of path) {
    if (cursor === null || typeof cursor !== 'object') return undefined;
    cursor = (cursor as Record<string, unknown>)[key];
  }
  return cursor;
}

/** Equality-based label selectors (`k=v`, `k==v`, `k!=v`), read from metadata.labels. */
export function compileLabelSelector(selector: string | null): (object: unknown) => boolean {
  if (!selector) return () => true;
  const clauses = selector.split(',').map((clause) => {
    const negated = clause.includes('!=');
    const [key = '', value = ''] = negated ? clause.split('!=') : clause.split(/==?/);
    return { key, value, negated };
  });
  return (object) => {
    const labels = (readPath(object, ['metadata', 'labels']) ?? {}) as Record<string, string>;
    return clauses.every(({ key, value, negated }) => (labels[key] === value) !== negated);
  };
}
