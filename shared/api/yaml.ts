// Parses YAML text within the input limits (limits.ts): size, nesting depth and alias expansion are bounded, so a
// hostile file fails with a message instead of a stack overflow or an exhausted heap. Used for manifests and scenarios.
// Merge keys (`<<`) are refused: an object is read as written, so what a reviewer sees is what Karpless plans with.
import { type Document, parseAllDocuments } from 'yaml';
import { DEFAULT_INPUT_LIMITS, type InputLimits, mib, nestingDepth } from './limits';
import { readBlockYaml } from './yaml-block';
import { aliasNodesOf, mergeKeyPath, repeatedKeyOffset } from './yaml-guards';

export type YamlLimits = Pick<
  InputLimits,
  'maxDepth' | 'maxAliases' | 'maxFileBytes' | 'maxFullParserBytes' | 'maxAliasNodes'
>;

export interface ParsedYaml {
  /** 1-based position of the document in its file. */
  index: number;
  value: unknown;
}

/**
 * The documents of `text` as plain values. Problems are pushed to `errors`, each once, as `<where>: [line N: ]message`,
 * where `where(index)` names the document (`file#2` for manifests, the file alone for a scenario).
 */
export function parseYaml(
  text: string,
  file: string,
  errors: string[],
  limits: YamlLimits = DEFAULT_INPUT_LIMITS,
  where: (index: number) => string = (index) => `${file}#${index}`,
): ParsedYaml[] {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > limits.maxFileBytes) {
    errors.push(`${file}: ${mib(bytes)} is more than the limit of ${mib(limits.maxFileBytes)} per file; split it`);
    return [];
  }
  const tooDeep = `nested more than ${limits.maxDepth} levels deep`;
  // Plain block YAML, as tools write it, is read without the `yaml` package, many times faster (yaml-block.ts). It
  // answers only within the depth limit, so its documents need no second walk; a deeper one is read below and named.
  const block = readBlockYaml(text, limits.maxDepth);
  if (block) return block.map((value, i) => ({ index: i + 1, value }));
  if (bytes > limits.maxFullParserBytes) {
    errors.push(
      `${file}: ${mib(bytes)} of YAML that needs the full parser (flow style or JSON, anchors, block scalars) is more ` +
        `than its limit of ${mib(limits.maxFullParserBytes)}; write it as block YAML (kubectl get -o yaml) or split it`,
    );
    return [];
  }
  let docs: Document.Parsed[];
  try {
    docs = parseAllDocuments(text, { merge: false, uniqueKeys: false }) as Document.Parsed[];
  } catch (err) {
    errors.push(`${file}: ${err instanceof RangeError ? tooDeep : `cannot parse: ${String(err)}`}`);
    return [];
  }
  const out: ParsedYaml[] = [];
  docs.forEach((d, i) => {
    const index = i + 1;
    if (d.errors.length > 0) {
      const seen = new Set<string>();
      for (const e of d.errors) {
        const line = e.linePos?.[0]?.line;
        const first = (e.message.split('\n')[0] ?? e.message).replace(/ at line \d+, column \d+:?$/, '');
        const message = first.includes('Maximum call stack size exceeded') ? tooDeep : first;
        const text = `${where(index)}: ${line !== undefined ? `line ${line}: ` : ''}${message}`;
        if (!seen.has(text)) errors.push(text);
        seen.add(text);
      }
      return;
    }
    const repeated = repeatedKeyOffset(d);
    if (repeated !== undefined) {
      errors.push(`${where(index)}: line ${text.slice(0, repeated).split('\n').length}: Map keys must be unique`);
      return;
    }
    let value: unknown;
    try {
      const added = aliasNodesOf(d, limits.maxAliasNodes);
      if (added > limits.maxAliasNodes) {
        errors.push(
          `${where(index)}: its aliases expand to more than ${limits.maxAliasNodes} nodes (the limit); write the ` +
            'repeated parts out or split the document',
        );
        return;
      }
      value = d.toJS({ maxAliasCount: limits.maxAliases });
    } catch (err) {
      errors.push(`${where(index)}: ${err instanceof RangeError ? tooDeep : err instanceof Error ? err.message : err}`);
      return;
    }
    const merge = text.includes('<<') ? mergeKeyPath(value) : undefined;
    if (merge !== undefined) {
      errors.push(
        `${where(index)}${mergeWhere(value, merge)}: a YAML merge key (<<) is not supported: Kubernetes objects are read as written; ` +
          "expand it first (for example with yq 'explode(.)')",
      );
      return;
    }
    out.push(...withinDepth([value], limits.maxDepth, () => where(index), errors, tooDeep, index));
  });
  return out;
}

/** The documents no deeper than `maxDepth`, numbered from `first`; each deeper one is an error. */
function withinDepth(
  values: unknown[],
  maxDepth: number,
  where: (index: number) => string,
  errors: string[],
  tooDeep: string,
  first = 1,
): ParsedYaml[] {
  const out: ParsedYaml[] = [];
  values.forEach((value, i) => {
    const index = first + i;
    if (nestingDepth(value, maxDepth) > maxDepth) errors.push(`${where(index)}: ${tooDeep}`);
    else out.push({ index, value });
  });
  return out;
}

/** ` Kind/name: path` of a merge key, inside a List's item when it is in one, as the error format has it. */
function mergeWhere(value: unknown, path: string): string {
  const inItem = /^items\[(\d+)\]\.(.*)$/.exec(path);
  const items = (value as { kind?: unknown; items?: unknown }).kind === 'List' && (value as { items: unknown }).items;
  if (inItem && Array.isArray(items)) return `${objectName(items[Number(inItem[1])])}: ${inItem[2]}`;
  return `${objectName(value)}: ${path}`;
}

/** ` Kind/name` of a document that names itself, as the error format has it; empty otherwise. */
function objectName(value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return '';
  const { kind, metadata } = value as { kind?: unknown; metadata?: { name?: unknown } };
  if (typeof kind !== 'string') return '';
  return ` ${kind}/${typeof metadata?.name === 'string' ? metadata.name : '<unnamed>'}`;
}
