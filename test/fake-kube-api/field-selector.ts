// The field selector subset the adapter and the forwarder send: `a.b=v`, `a.b==v`, `a.b!=v`, comma-joined.

export function matchesFieldSelector(object: unknown, selector: string | null): boolean {
  if (!selector) return true;
  return selector.split(',').every((clause) => {
    const negated = clause.includes('!=');
    const [path, value = ''] = negated ? clause.split('!=') : clause.split(/==?/);
    const actual = readPath(object, path ?? '') ?? '';
    return negated ? String(actual) !== value : String(actual) === value;
  });
}

function readPath(object: unknown, path: string): unknown {
  let cursor: unknown = object;
  for (const key of path.split('.')) {
    if (cursor === null || typeof cursor !== 'object') return undefined;
    cursor = (cursor as Record<string, unknown>)[key];
  }
  return cursor;
}
