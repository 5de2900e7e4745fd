// A fast reader for the plain block YAML that tools write (`kubectl get -o yaml`, generators, `yaml.stringify`):
// block maps and sequences, plain and single-line quoted scalars, comments, `{}` and `[]`. Anything else (anchors,
// tags, flow collections, block or multi-line scalars, tabs, odd indentation, duplicate keys) makes it give up, and
// the text goes to the `yaml` package, which reads everything and words every error (docs/performance.md, "Whole
// command"). Where it answers, it answers what `yaml` would: the same documents, the same values under YAML 1.2's
// core schema.

/** Thrown to give up; caught in `readBlockYaml`. */
const GIVE_UP = Symbol('give up');

/** Characters `yaml` rejects or treats specially anywhere in a stream (control characters, tabs, CR, BOM, NEL…). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const UNSUPPORTED_CHARACTERS = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/;
/** Characters a plain scalar (or key) may not start with in this subset. */
const INDICATORS = new Set([...'-?:,[]{}#&*!|>\'"%@`']);
/** `yaml` limits an implicit key to 1024 characters. */
const MAX_KEY_LENGTH = 1000;

const CORE_NULL = /^(?:~|[Nn]ull|NULL)?$/;
const CORE_BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const CORE_OCT = /^0o[0-7]+$/;
const CORE_INT = /^[-+]?[0-9]+$/;
const CORE_HEX = /^0x[0-9a-fA-F]+$/;
const CORE_NAN_INF = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const CORE_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$|^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;
/** The first character of every non-string core-schema scalar, so most strings skip the tests above. */
const MAYBE_NOT_STRING = /^[-+.0-9~nNtTfF]|^$/;

const ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
};

const SPACE = 0x20;
const HASH = 0x23;

/** `text` without its leading spaces (only spaces: YAML's other white space is content). */
const afterSpaces = (text: string): string => {
  let at = 0;
  while (text.charCodeAt(at) === SPACE) at++;
  return at === 0 ? text : text.slice(at);
};

/** `text` without its trailing spaces. */
const beforeSpaces = (text: string): string => {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === SPACE) end--;
  return end === text.length ? text : text.slice(0, end);
};

interface Line {
  indent: number;
  text: string;
}

/**
 * The values of the documents in `text`, one per document as `yaml`'s `parseAllDocuments` counts them, or undefined
 * when the text is outside the subset. Nesting deeper than `maxDepth` (maps and sequences, `{}` and `[]` included)
 * gives up too, so `yaml` reads it and the caller words the error; what this returns is within `maxDepth`.
 */
export function readBlockYaml(text: string, maxDepth: number): unknown[] | undefined {
  if (UNSUPPORTED_CHARACTERS.test(text)) return undefined;
  try {
    // Each document is read as soon as its lines are found, so only one document's lines are alive at a time.
    const out: unknown[] = [];
    for (const lines of documentsOf(text)) out.push(new BlockParser(lines, maxDepth).document());
    return out;
  } catch (err) {
    // A stack overflow on deep nesting is left to `yaml` too, which words it as too deep.
    if (err === GIVE_UP || err instanceof RangeError) return undefined;
    throw err;
  }
}

/** Splits the stream at `---` lines; a document starts at its first content or marker, as `yaml` counts them. Lines
 * are found by offset, so a blank or comment line costs no string. */
function* documentsOf(text: string): Generator<Line[]> {
  let current: Line[] | undefined;
  for (let lineStart = 0; lineStart <= text.length; ) {
    const newline = text.indexOf('\n', lineStart);
    const end = newline < 0 ? text.length : newline;
    let at = lineStart;
    while (text.charCodeAt(at) === SPACE) at++;
    let last = end;
    while (last > at && text.charCodeAt(last - 1) === SPACE) last--;
    const indent = at - lineStart;
    lineStart = end + 1;
    if (at === last || text.charCodeAt(at) === HASH) continue;
    const body = text.slice(at, last);
    if (body.startsWith('---') || body.startsWith('...') || body[0] === '%') {
      if (indent > 0 || !/^---(?: +(?:#.*)?)?$/.test(body)) throw GIVE_UP;
      if (current) yield current;
      current = [];
      continue;
    }
    current ??= [];
    current.push({ indent, text: body });
  }
  if (current) yield current;
}

class BlockParser {
  private at = 0;

  constructor(
    private readonly lines: Line[],
    private readonly maxDepth: number,
  ) {}

  document(): unknown {
    const first = this.lines[0];
    if (!first) return null;
    if (!isSeqItem(first.text) && keyEnd(first.text) < 0) throw GIVE_UP;
    const value = this.node(first, 1);
    if (this.at < this.lines.length) throw GIVE_UP;
    return value;
  }

  /** The collection or scalar starting at `line`, the current line. */
  private node(line: Line, depth: number): unknown {
    if (isSeqItem(line.text)) return this.seq(line.indent, depth);
    if (keyEnd(line.text) >= 0) return this.map(line.indent, depth);
    this.at++;
    return this.scalar(line.text, depth);
  }

  /** A scalar at `depth`, where `{}` and `[]` count as a level, as the depth check counts them. */
  private scalar(text: string, depth: number): unknown {
    const value = scalar(text);
    if (depth > this.maxDepth && typeof value === 'object' && value !== null) throw GIVE_UP;
    return value;
  }

  /** The value below a `key:` or `-` with nothing after it: a more indented node, a sequence at `indent` when
   * `sameIndentSeq`, or null. */
  private below(indent: number, sameIndentSeq: boolean, depth: number): unknown {
    const next = this.lines[this.at];
    if (!next || next.indent < indent) return null;
    if (next.indent === indent) return sameIndentSeq && isSeqItem(next.text) ? this.seq(indent, depth) : null;
    if (!isSeqItem(next.text) && keyEnd(next.text) < 0) throw GIVE_UP;
    return this.node(next, depth);
  }

  private map(indent: number, depth: number): Record<string, unknown> {
    if (depth > this.maxDepth) throw GIVE_UP;
    const out: Record<string, unknown> = {};
    for (let line = this.lines[this.at]; line && line.indent >= indent; line = this.lines[this.at]) {
      if (line.indent > indent || isSeqItem(line.text)) throw GIVE_UP;
      const end = keyEnd(line.text);
      if (end < 0) throw GIVE_UP;
      const key = line.text.slice(0, end);
      if (!isPlainKey(key) || Object.hasOwn(out, key)) throw GIVE_UP;
      const rest = afterSpaces(line.text.slice(end + 1));
      this.at++;
      out[key] = rest === '' || rest[0] === '#' ? this.below(indent, true, depth + 1) : this.scalar(rest, depth + 1);
    }
    return out;
  }

  private seq(indent: number, depth: number): unknown[] {
    if (depth > this.maxDepth) throw GIVE_UP;
    const out: unknown[] = [];
    for (let line = this.lines[this.at]; line && line.indent >= indent; line = this.lines[this.at]) {
      if (line.indent > indent) throw GIVE_UP;
      // A key at the sequence's own indent ends it: it is the next entry of the map the sequence is a value of.
      if (!isSeqItem(line.text)) break;
      const rest = line.text.slice(1);
      const content = afterSpaces(rest);
      if (content === '' || content[0] === '#') {
        this.at++;
        out.push(this.below(indent + 1, false, depth + 1));
        continue;
      }
      // The item's content is read as a line of its own at its column, so a map there continues on the next lines.
      line.indent = indent + 1 + rest.length - content.length;
      line.text = content;
      out.push(this.node(line, depth + 1));
    }
    return out;
  }
}

const isSeqItem = (text: string): boolean => text[0] === '-' && (text.length === 1 || text[1] === ' ');

/** Where the `:` of a plain `key: value` line is, or -1 when the line is not one. */
function keyEnd(text: string): number {
  if (INDICATORS.has(text[0] ?? '')) return -1;
  for (let i = text.indexOf(':'); i >= 0; i = text.indexOf(':', i + 1)) {
    if (i + 1 === text.length || text[i + 1] === ' ') return i;
  }
  return -1;
}

function isPlainKey(key: string): boolean {
  return (
    key.length > 0 &&
    key.length <= MAX_KEY_LENGTH &&
    key !== '<<' &&
    key !== '__proto__' &&
    !key.includes(' #') &&
    !key.endsWith(' ') &&
    typeof plain(key) === 'string'
  );
}

/** A scalar on one line (the rest of a `key: ` or `- ` line, spaces trimmed on both ends). */
function scalar(text: string): unknown {
  const first = text[0];
  if (first === '"' || first === "'") {
    const { value, end } = first === '"' ? doubleQuoted(text) : singleQuoted(text);
    const after = text.slice(end);
    if (after !== '' && !/^ +#/.test(after)) throw GIVE_UP;
    return value;
  }
  if (first === '{' || first === '[') {
    const empty = first === '{' ? '{}' : '[]';
    if (!text.startsWith(empty) || !/^(?: +#.*)?$/.test(text.slice(2))) throw GIVE_UP;
    return first === '{' ? {} : [];
  }
  if (first === undefined || (INDICATORS.has(first) && !(first === '-' && text.length > 1 && text[1] !== ' ')))
    throw GIVE_UP;
  const comment = text.indexOf(' #');
  const value = comment < 0 ? text : beforeSpaces(text.slice(0, comment));
  if (value.endsWith(':') || value.includes(': ')) throw GIVE_UP;
  return plain(value);
}

/** A plain scalar's value under the YAML 1.2 core schema, as `yaml` resolves it. */
function plain(text: string): unknown {
  if (!MAYBE_NOT_STRING.test(text)) return text;
  if (CORE_NULL.test(text)) return null;
  if (CORE_BOOL.test(text)) return text[0] === 't' || text[0] === 'T';
  if (CORE_OCT.test(text)) return Number.parseInt(text.slice(2), 8);
  if (CORE_INT.test(text)) return Number.parseInt(text, 10);
  if (CORE_HEX.test(text)) return Number.parseInt(text.slice(2), 16);
  if (CORE_NAN_INF.test(text))
    return text.slice(-3).toLowerCase() === 'nan'
      ? Number.NaN
      : text[0] === '-'
        ? Number.NEGATIVE_INFINITY
        : Number.POSITIVE_INFINITY;
  if (CORE_FLOAT.test(text)) return Number.parseFloat(text);
  return text;
}

function singleQuoted(text: string): { value: string; end: number } {
  let value = '';
  for (let i = 1; i < text.length; i++) {
    const quote = text.indexOf("'", i);
    if (quote < 0) break;
    value += text.slice(i, quote);
    if (text[quote + 1] !== "'") return { value, end: quote + 1 };
    value += "'";
    i = quote + 1;
  }
  throw GIVE_UP;
}

function doubleQuoted(text: string): { value: string; end: number } {
  let value = '';
  for (let i = 1; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '"') return { value, end: i + 1 };
    if (ch !== '\\') {
      value += ch;
      continue;
    }
    const escaped = ESCAPES[text[++i] ?? ''];
    if (escaped === undefined) throw GIVE_UP;
    value += escaped;
  }
  throw GIVE_UP;
}
