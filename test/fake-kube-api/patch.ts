// Applies the three patch types the way the API server does, enough for tests to assert the resulting object.
// Strategic merge is approximated: the lists we patch (taints) are replaced wholesale, as their patch strategy
// has no merge key; `$patch`/`$retainKeys` directives are not supported.

export class PatchTestFailed extends Error {}

type Json = Record<string, unknown>;

export function applyPatch(target: Json, contentType: string, patch: unknown): Json {
  if (contentType.startsWith('application/json-patch+json')) return applyJsonPatch(target, patch as JsonPatchOp[]);
  if (
    contentType.startsWith('application/merge-patch+json') ||
    contentType.startsWith('application/strategic-merge-patch+json')
  ) {
    return mergePatch(target, patch) as Json;
  }
  throw new Error(`unsupported patch content type ${contentType}`);
}

export interface JsonPatchOp {
  op: 'add' | 'replace' | 'remove' | 'test';
  path: string;
  value?: unknown;
}

function applyJsonPatch(target: Json, ops: JsonPatchOp[]): Json {
  const doc = structuredClone(target);
  for (const op of ops) {
    const keys = op.path
      .split('/')
      .slice(1)
      .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = keys.pop() as string;
    let parent: Record<string, unknown> | unknown[] = doc;
    for (const key of keys) {
      const next: unknown = Array.isArray(parent) ? parent[Number(key)] : parent[key];
      if (next === undefined || next === null || typeof next !== 'object') {
        if (op.op === 'test' || op.op === 'remove' || op.op === 'replace')
          throw new PatchTestFailed(`path ${op.path} not found`);
        throw new PatchTestFailed(`parent of ${op.path} not found`);
      }
      parent = next as Record<string, unknown>;
    }
    const container = parent as Record<string, unknown> & unknown[];
    const index = Array.isArray(container) ? (last === '-' ? container.length : Number(last)) : last;
    if (op.op === 'test') {
      if (JSON.stringify(container[index as never]) !== JSON.stringify(op.value)) {
        throw new PatchTestFailed(`test failed at ${op.path}`);
      }
    } else if (op.op === 'remove') {
      if (!(index in container)) throw new PatchTestFailed(`path ${op.path} not found`);
      if (Array.isArray(container)) container.splice(index as number, 1);
      else delete container[index as never];
    } else if (op.op === 'add' && Array.isArray(container)) {
      container.splice(index as number, 0, op.value);
    } else {
      if (op.op === 'replace' && !(index in container)) throw new PatchTestFailed(`path ${op.path} not found`);
      container[index as never] = op.value as never;
    }
  }
  return doc;
}

function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Json = target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Json) } : {};
  for (const [key, value] of Object.entries(patch as Json)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}
