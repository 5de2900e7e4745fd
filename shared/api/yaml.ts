// Parses YAML text within the input limits (limits.ts): size, nesting depth and alias expansion are bounded, so a
// hostile file fails with a message instead of a stack overflow or an exhausted heap. Used for manifests and scenarios.
import { type Document, parseAllDocuments } from 'yaml';
import { DEFAULT_INPUT_LIMITS, type InputLimits, nestingDepth } from './limits';
import { readBlockYaml } from './yaml-block';

export type YamlLimits = Pick<InputLimits, 'maxDepth' | 'maxAliases' | 'maxFileBytes'>;

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
  let docs: Document.Parsed[];
  try {
    docs = parseAllDocuments(text, { merge: true, uniqueKeys: true }) as Document.Parsed[];
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
    let value: unknown;
    try {
      value = d.toJS({ maxAliasCount: limits.maxAliases });
    } catch (err) {
      errors.push(`${where(index)}: ${err instanceof RangeError ? tooDeep : err instanceof Error ? err.message : err}`);
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

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
