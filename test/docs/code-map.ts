// The repository paths a doc names: in code spans (`shared/sim/world.ts`, `functions/_wiring/`) and in its code map
// blocks, where an indented `_wiring/` sits under the `functions/` above it and a bare `world.ts` in an entry's
// description is a file of that entry's folder. docs/architecture.md ("Layers") is the map the test holds to the tree.

export interface NamedPath {
  /** The candidate paths, most likely first: the first that exists is the one meant. */
  candidates: string[];
  /** How the doc wrote it, for the report. */
  written: string;
}

const EXTENSIONS = ['ts', 'mjs', 'cjs', 'js', 'md', 'json', 'yaml', 'yml', 'wasm'];
const FILE_NAME = new RegExp(String.raw`^[\w.-]+\.(?:${EXTENSIONS.join('|')})$`);
/** A relative path: segments of word characters, dots and hyphens, at least one slash, maybe a trailing one. */
const PATH = /^[\w.-]+(?:\/[\w.-]+)*\/?$/;

/** Whether a code span is a repository path: it has a slash, and no first segment that is a domain or a package. */
export function isRepositoryPath(span: string): boolean {
  if (!PATH.test(span) || !span.includes('/')) return false;
  const first = span.split('/')[0] ?? '';
  return !(first.includes('.') && !first.startsWith('.'));
}

const strip = (p: string): string => p.replace(/\/$/, '');

/** Paths in code spans outside fenced blocks. */
function spanPaths(markdown: string): NamedPath[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '');
  return [...prose.matchAll(/`([^`\n]+)`/g)]
    .map((m) => m[1] ?? '')
    .filter(isRepositoryPath)
    .map((p) => ({ candidates: [strip(p)], written: p }));
}

/**
 * Paths in a code map block: each line that starts with a path (at the margin, or indented under a folder above it)
 * names it, and the bare file names and `folder/` words of its description are resolved against it, else the root.
 */
export function mapPaths(block: string): NamedPath[] {
  const out: NamedPath[] = [];
  let parent = '';
  let entry = '';
  for (const line of block.split('\n')) {
    const head = /^( *)(\S+)(?: {2,}|$)/.exec(line);
    const indent = head?.[1]?.length ?? 0;
    const word = head?.[2] ?? '';
    if (head && (word.includes('/') || FILE_NAME.test(word)) && /^[\w.-]/.test(word)) {
      entry = indent === 0 ? strip(word) : `${parent}/${strip(word)}`;
      if (indent === 0) parent = entry;
      out.push({ candidates: [entry], written: word });
    }
    const description = head ? line.slice(head[0].length) : line;
    for (const m of description.matchAll(/(?<![\w./`-])([\w-]+(?:\.[\w-]+)*\/?)(?=[\s,;:)]|$)/g)) {
      const w = m[1] ?? '';
      if (!FILE_NAME.test(w) && !/^[\w-]+\/$/.test(w)) continue;
      const rel = strip(w);
      out.push({ candidates: entry && entry !== rel ? [`${entry}/${rel}`, rel] : [rel], written: w });
    }
  }
  return out;
}

/** Every repository path the doc names, in spans and in its unlabeled code blocks (the maps; diagrams have none). */
export function namedPaths(markdown: string): NamedPath[] {
  const blocks = [...markdown.matchAll(/```\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  return [...spanPaths(markdown), ...blocks.flatMap(mapPaths)];
}
