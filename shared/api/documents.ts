// Splits YAML text into documents. Syntax errors name the file, the document and the line; empty documents are
// skipped; a `kind: List` (as `kubectl get -o yaml` prints) contributes its items.
import { parseAllDocuments } from 'yaml';
import { isObj, type Obj } from './check';

export interface SourceDocument {
  file: string;
  /** 1-based position in the file. */
  doc: number;
  raw: Obj;
}

export function readDocuments(text: string, file: string, errors: string[]): SourceDocument[] {
  const out: SourceDocument[] = [];
  const docs = parseAllDocuments(text, { merge: true, uniqueKeys: true });
  docs.forEach((d, i) => {
    const index = i + 1;
    if (d.errors.length > 0) {
      for (const e of d.errors) {
        const line = e.linePos?.[0]?.line;
        const message = (e.message.split('\n')[0] ?? e.message).replace(/ at line \d+, column \d+:?$/, '');
        errors.push(`${file}#${index}: ${line !== undefined ? `line ${line}: ` : ''}${message}`);
      }
      return;
    }
    let value: unknown;
    try {
      value = d.toJS({ maxAliasCount: 1000 });
    } catch (err) {
      errors.push(`${file}#${index}: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    if (value === null || value === undefined) return;
    if (!isObj(value)) {
      errors.push(`${file}#${index}: a document must be a Kubernetes object (a map with apiVersion and kind)`);
      return;
    }
    if (value.kind === 'List' && Array.isArray(value.items)) {
      for (const item of value.items) {
        if (isObj(item)) out.push({ file, doc: index, raw: item });
        else errors.push(`${file}#${index}: List items must be Kubernetes objects`);
      }
      return;
    }
    out.push({ file, doc: index, raw: value });
  });
  return out;
}
