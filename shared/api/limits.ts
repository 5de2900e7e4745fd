// Bounds on what one run reads, so no input can hang or exhaust the process: a YAML bomb, a runaway `replicas`, a
// scenario that would simulate for years. Each bound fails with an error that names the file, the object and the field
// and says how to raise it where raising is reasonable (docs/api.md, "Input limits").

export interface InputLimits {
  /** Pods one run may expand to: bare Pods plus every controller's replicas. `--max-pods` raises it. */
  maxPods: number;
  /** Nesting depth of any YAML document (Kubernetes objects stay far below it). */
  maxDepth: number;
  /** Aliases one YAML document may expand (the "billion laughs" guard). */
  maxAliases: number;
  /** Bytes of one YAML file. */
  maxFileBytes: number;
  /**
   * Bytes of one file that needs the full YAML parser (flow style and JSON, anchors, block scalars): it holds about
   * 60 bytes of memory per byte of text, against under 7 for the plain block YAML tools write (docs/api.md, "Input
   * limits"), so its cap is what parses within the CLI's heap.
   */
  maxFullParserBytes: number;
  /** Nodes (maps, lists and scalars) that one YAML document's aliases may add when expanded. */
  maxAliasNodes: number;
  /** Unknown kinds are an error unless this is set (`--ignore-unknown`). */
  ignoreUnknownKinds: boolean;
}

export const DEFAULT_INPUT_LIMITS: Readonly<InputLimits> = Object.freeze({
  maxPods: 100_000,
  maxDepth: 100,
  maxAliases: 1000,
  maxFileBytes: 64 * 2 ** 20,
  maxFullParserBytes: 16 * 2 ** 20,
  maxAliasNodes: 200_000,
  ignoreUnknownKinds: false,
});

/** Limits with the given overrides; undefined fields keep their defaults. */
export function inputLimits(overrides: Partial<InputLimits> = {}): InputLimits {
  const out: InputLimits = { ...DEFAULT_INPUT_LIMITS };
  for (const [k, v] of Object.entries(overrides) as [keyof InputLimits, never][]) if (v !== undefined) out[k] = v;
  return out;
}

/** Kubernetes object names are DNS subdomains: at most 253 characters. */
export const MAX_NAME_LENGTH = 253;
/**
 * A NodePool's name becomes the `karpenter.sh/nodepool` label value on every node, and label values stop at 63
 * characters; the API server would refuse those nodes.
 */
export const MAX_NODEPOOL_NAME_LENGTH = 63;

/** The deepest nesting of arrays and maps in a parsed value, walked without recursion. */
export function nestingDepth(value: unknown, stopAt: number): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (typeof v !== 'object' || v === null) continue;
    const d = depth + 1;
    if (d > max) max = d;
    if (max > stopAt) return max;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d]);
  }
  return max;
}

/** A byte count as the limit messages show it: `63.9 MiB`. */
export const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
