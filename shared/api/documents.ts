// Splits YAML text into documents. Syntax errors name the file, the document and the line; empty documents are
// skipped; a `kind: List` (as `kubectl get -o yaml` prints) contributes its items. Size, nesting and aliases are
// bounded (yaml.ts).
import { isObj, type Obj } from './check';
import { DEFAULT_INPUT_LIMITS } from './limits';
import { parseYaml, type YamlLimits } from './yaml';

export interface SourceDocument {
  file: string;
  /** 1-based position in the file. */
  doc: number;
  raw: Obj;
  /** Which input it came from (the position of its `-f` argument): a later input's NodePools, EC2NodeClasses and
   * NodeOverlays replace an earlier one's of the same name (docs/simulate-dump.md, "Layered inputs"). */
  input?: number;
}

export function readDocuments(
  text: string,
  file: string,
  errors: string[],
  limits: YamlLimits = DEFAULT_INPUT_LIMITS,
): SourceDocument[] {
  const out: SourceDocument[] = [];
  for (const { index, value } of parseYaml(text, file, errors, limits)) {
    if (value === null || value === undefined) continue;
    if (!isObj(value)) {
      errors.push(`${file}#${index}: a document must be a Kubernetes object (a map with apiVersion and kind)`);
      continue;
    }
    if (value.kind === 'List' && Array.isArray(value.items)) {
      for (const [i, item] of value.items.entries()) {
        if (isObj(item)) out.push({ file, doc: index, raw: item });
        else errors.push(`${file}#${index}: items[${i}]: a List item must be a Kubernetes object`);
      }
      continue;
    }
    out.push({ file, doc: index, raw: value });
  }
  return out;
}
