// Citations of a doc section, as comments and docs write them, and the headings they must name. A citation is
// `docs/<name>.md#anchor`, `docs/<name>.md ("Section")`, `docs/<name>.md, "Section"`, `(docs/<name>.md, Section)` or
// `docs/<name>.md (Section)`; the section must be a heading of that doc (case and backticks aside), and an anchor
// the GitHub anchor of one.

export interface Citation {
  /** The cited doc's path, e.g. `docs/performance.md`. */
  doc: string;
  /** The section named, or the anchor (with its `#`). */
  target: string;
  /** 1-based line of the citation in its file. */
  line: number;
}

const FENCE = /^\s*(```|~~~)/;

/** The text of every heading outside code blocks, in order. */
export function headings(markdown: string): string[] {
  return outsideFences(markdown).flatMap((line) => {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    return m?.[1] ? [m[1]] : [];
  });
}

/** The bold words that open a paragraph (`**Memory at 30k pods.** …`): the docs' titles below the headings. */
export function leadIns(markdown: string): string[] {
  return outsideFences(markdown).flatMap((line) => {
    const m = /^(?:[-*]\s+)?\*\*([^*]+?)\*\*/.exec(line);
    return m?.[1] ? [m[1]] : [];
  });
}

function outsideFences(markdown: string): string[] {
  let inFence = false;
  return markdown.split('\n').filter((line) => {
    if (FENCE.test(line)) inFence = !inFence;
    return !inFence && !FENCE.test(line);
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a doc has, numbered as GitHub numbers repeated headings (`x`, `x-1`, ...). */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const h of headings(markdown)) {
    const base = slug(h);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

const sectionKey = (s: string): string => s.replace(/`/g, '').replace(/\s+/g, ' ').trim().toLowerCase();

/** A comment's or a paragraph's lines joined into one, with each line's start kept to give a match its line. */
function joined(text: string): { flat: string; starts: number[] } {
  const starts: number[] = [];
  let flat = '';
  for (const line of text.split('\n')) {
    const body = flat === '' ? line : line.replace(/^\s*(?:\/\/+|\/?\*+\/?(?!\S*\*)|>)?\s*/, '');
    if (flat !== '') flat += ' ';
    starts.push(flat.length);
    flat += body;
  }
  return { flat, starts };
}

const DOC = String.raw`docs/([\w-]+)\.md`;
const FORMS: readonly RegExp[] = [
  new RegExp(String.raw`${DOC}(#[\w-]+)`, 'g'),
  new RegExp(String.raw`${DOC}\x60?(?:,\s*|\s*\(\s*)"([^"]+)"`, 'g'),
  new RegExp(String.raw`(?:\(|;\s*)\x60?${DOC}\x60?,\s*([^()";\x60]+?)(?=[);])`, 'g'),
  new RegExp(String.raw`${DOC}\x60?\s+\(([^()"\x60]+)\)`, 'g'),
];

/** Every citation of a doc section or anchor in `text`. */
export function citations(text: string): Citation[] {
  const { flat, starts } = joined(text);
  const lineAt = (index: number): number => {
    let line = 0;
    while (line + 1 < starts.length && (starts[line + 1] ?? 0) <= index) line++;
    return line + 1;
  };
  const out: Citation[] = [];
  for (const form of FORMS) {
    for (const m of flat.matchAll(form)) {
      out.push({ doc: `docs/${m[1]}.md`, target: (m[2] ?? '').trim(), line: lineAt(m.index) });
    }
  }
  return out.sort((a, b) => a.line - b.line);
}

/**
 * Whether a doc (its markdown, or undefined when there is no such doc) has the anchor or section cited. A section is
 * named by a heading or a paragraph's bold title, whole or up to its punctuation ("Anti-churn" names "Anti-churn
 * (beyond Karpenter)", "Memory" names "Memory: 10k pods"); a citation that goes on past a comma, colon or semicolon ("Timers: ICE cache 3 min") names the part
 * before it.
 */
export function resolves(target: string, markdown: string | undefined): boolean {
  if (markdown === undefined) return false;
  if (target.startsWith('#')) return anchors(markdown).has(target.slice(1));
  const titles = [...headings(markdown), ...leadIns(markdown)].map(sectionKey);
  const named = (key: string): boolean =>
    key !== '' && titles.some((t) => t === key || (t.startsWith(key) && /^\s*[(:.,;—–]/.test(t.slice(key.length))));
  const key = sectionKey(target.replace(/\.$/, ''));
  return named(key) || named(key.split(/[,;:]/)[0]?.trim() ?? '');
}
