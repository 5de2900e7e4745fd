// Collects validation problems for one document, each rendered as `file#doc Kind/name: path: message`, so a user can
// find every mistake of every file in one run instead of fixing them one at a time.

export interface DocumentRef {
  file: string;
  /** 1-based position of the document in its file. */
  doc: number;
  kind: string;
  name: string;
}

export const describeDoc = (ref: DocumentRef): string => `${ref.file}#${ref.doc} ${ref.kind}/${ref.name}`;

export class Problems {
  readonly errors: string[] = [];
  readonly warnings: string[] = [];

  constructor(readonly ref: DocumentRef) {}

  error(path: string, message: string): void {
    this.errors.push(`${describeDoc(this.ref)}: ${path ? `${path}: ` : ''}${message}`);
  }

  warn(path: string, message: string): void {
    this.warnings.push(`${describeDoc(this.ref)}: ${path ? `${path}: ` : ''}${message}`);
  }
}

/** Joins field-path segments: `at('spec', 'requirements', 1)` → `spec.requirements[1]`. */
export function at(...segments: (string | number)[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (s.startsWith('[')) out += s;
    else out += out ? `.${s}` : s;
  }
  return out;
}

/** A map key as a path segment: `labels["team"]`. */
export const key = (k: string): string => `[${JSON.stringify(k)}]`;
