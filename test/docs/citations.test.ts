// Every citation of a doc section in code, comments and docs names a section that exists (docs/architecture.md: code
// comments cite the docs by section topic), so a renamed or removed heading cannot leave a comment pointing nowhere.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, citations, headings, resolves, slug } from './citations';
import { ROOT, trackedFiles } from './tracked';

const docText = (doc: string): string | undefined => {
  const path = join(ROOT, doc);
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
};

describe('the repository', () => {
  const files = trackedFiles(['ts', 'mjs', 'cjs', 'md']);
  const found = files.flatMap((f) => citations(f.text).map((c) => ({ ...c, file: f.path })));

  it('reads the citations of docs/performance.md and docs/architecture.md', () => {
    const cited = new Set(found.map((c) => `${c.doc} ${c.target}`));
    expect(cited).toContain('docs/performance.md #cli-startup');
    expect(cited).toContain('docs/performance.md A deadline that holds');
    expect(cited).toContain('docs/architecture.md Layers');
    expect(found.length).toBeGreaterThan(200);
  });

  it('cites only sections and anchors its docs have', () => {
    const broken = found
      .filter((c) => !resolves(c.target, docText(c.doc)))
      .map((c) => `${c.file}:${c.line}: ${c.doc} (${c.target})`);
    expect(broken).toEqual([]);
  });
});

describe('the checker', () => {
  const doc = [
    '# Performance',
    '## CLI startup',
    '```',
    '## Not a heading',
    '```',
    "## Memory and the provisioner's memory size",
    '### Anti-churn (beyond Karpenter)',
    '**Memory at 30k pods.** Listing pods.',
    '## Twice',
    '## Twice',
  ].join('\n');

  it('reads headings outside code blocks and their GitHub anchors', () => {
    expect(headings(doc)).not.toContain('Not a heading');
    expect(slug("Memory and the provisioner's memory size")).toBe('memory-and-the-provisioners-memory-size');
    expect([...anchors(doc)]).toEqual([
      'performance',
      'cli-startup',
      'memory-and-the-provisioners-memory-size',
      'anti-churn-beyond-karpenter',
      'twice',
      'twice-1',
    ]);
  });

  it('finds every citation form, across comment lines, with its line', () => {
    // Written through `d` so that this file's own source holds none of these citations.
    const d = (name: string) => ['docs', `${name}.md`].join('/');
    const code = [
      `// see ${d('performance')}#cli-startup and ${d('performance')} ("CLI startup")`,
      `// and (${d('performance')}, "Memory and the provisioner's`,
      `// memory size") or (${d('performance')}, A deadline that holds; ${d('api')}, Windows)`,
      ` * or ${d('disruption')} (Anti-churn).`,
    ].join('\n');
    expect(citations(code).map((c) => [c.line, c.doc, c.target])).toEqual([
      [1, 'docs/performance.md', '#cli-startup'],
      [1, 'docs/performance.md', 'CLI startup'],
      [2, 'docs/performance.md', "Memory and the provisioner's memory size"],
      [3, 'docs/performance.md', 'A deadline that holds'],
      [3, 'docs/api.md', 'Windows'],
      [4, 'docs/disruption.md', 'Anti-churn'],
    ]);
  });

  it('accepts a heading or a bold title, whole or up to its punctuation', () => {
    const named = [
      'CLI startup',
      'cli startup',
      '#twice-1',
      'Anti-churn',
      'Memory at 30k pods',
      'CLI startup: the end',
    ];
    expect(named.filter((s) => !resolves(s, doc))).toEqual([]);
  });

  it('fails a section, an anchor or a doc that does not exist', () => {
    const unnamed = ['Whole bench after the last run', 'Not a heading', '#twice-2', 'Memory and', 'CLI'];
    expect(unnamed.filter((s) => resolves(s, doc))).toEqual([]);
    expect(resolves('CLI startup', undefined)).toBe(false);
  });
});
