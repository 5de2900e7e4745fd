// JSON Merge Patch (RFC 7386), as `kubectl patch --type merge` applies it: objects merge key by key, null deletes a
// key, anything else (lists included) replaces the value.
type Json = unknown;

const isMap = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function mergePatch<T>(target: T, patch: Json): T {
  return apply(target, patch) as T;
}

function apply(target: Json, patch: Json): Json {
  if (!isMap(patch)) return structuredClone(patch);
  const out: Record<string, Json> = isMap(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = apply(out[k], v);
  }
  return out;
}
