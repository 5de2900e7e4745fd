// Writes test/karpenter/UPSTREAM.md: every It (and DescribeTable) title of the Karpenter suites this project
// translates, each mapped to the translated test that names it, or marked not translated. It reads local copies
// only, never the network: a checkout (a directory with the files) or a bare git directory (read with `git show`).
//
//   npx tsx test/karpenter/upstream-map.ts --core <karpenter checkout or git dir> --aws <provider checkout or git dir>
//
// The map is the checked-in artefact; upstream-map.test.ts fails when a mapped test name is not in its file.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The upstream files whose titles are mapped, by repository. */
export const UPSTREAM_FILES: Record<'core' | 'aws', string[]> = {
  core: [
    'pkg/controllers/provisioning/scheduling/suite_test.go',
    'pkg/controllers/provisioning/scheduling/topology_test.go',
    'pkg/controllers/provisioning/scheduling/instance_selection_test.go',
    'pkg/controllers/provisioning/suite_test.go',
    'pkg/controllers/disruption/consolidation_test.go',
    'pkg/controllers/disruption/emptiness_test.go',
    'pkg/controllers/disruption/drift_test.go',
    'pkg/controllers/disruption/suite_test.go',
    'pkg/controllers/disruption/queue_test.go',
    'pkg/controllers/nodeclaim/expiration/suite_test.go',
    'pkg/controllers/node/termination/suite_test.go',
    'pkg/controllers/node/health/suite_test.go',
    'pkg/controllers/nodeclaim/lifecycle/suite_test.go',
    'pkg/controllers/nodeclaim/lifecycle/launch_test.go',
    'pkg/controllers/nodeclaim/lifecycle/registration_test.go',
    'pkg/controllers/nodeclaim/lifecycle/initialization_test.go',
    'pkg/controllers/nodeclaim/lifecycle/liveness_test.go',
    'pkg/controllers/nodeclaim/lifecycle/termination_test.go',
  ],
  aws: ['pkg/cloudprovider/suite_test.go'],
};

const TITLE = /\b(?:It|DescribeTable)\(\s*"((?:\\.|[^"\\])*)"/g;

/** The It and DescribeTable titles of a Go test file, in order, once each. */
export function upstreamTitles(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(TITLE)) {
    const title = (m[1] ?? '').replace(/\\"/g, '"');
    if (!out.includes(title)) out.push(title);
  }
  return out;
}

const LITERAL = String.raw`(['"\x60])((?:\\.|(?!\1)[^\\])*)\1`;
const TEST_NAMES = [
  new RegExp(String.raw`\bit(?:\.each\([^()]*\))?\(\s*${LITERAL}`, 'g'),
  new RegExp(String.raw`\]\)\(\s*${LITERAL}`, 'g'),
];

/** The names of the `it` calls in a test file, unescaped (it.each names keep their `%s`). */
export function testNames(source: string): string[] {
  const out: string[] = [];
  for (const re of TEST_NAMES) {
    for (const m of source.matchAll(re)) out.push((m[2] ?? '').replace(/\\(['"\\])/g, '$1'));
  }
  return out;
}

const normal = (s: string): string => s.toLowerCase().replace(/\s+/g, ' ').trim();

interface TestRef {
  file: string;
  name: string;
  /** The upstream test files the translated file names (e.g. `topology_test.go`). */
  cites: string;
}

/** The translated test whose name contains the upstream title, preferring files that cite the upstream file. */
function findTest(title: string, upstreamPath: string, tests: TestRef[]): TestRef | undefined {
  const t = normal(title);
  const base = upstreamPath.split('/').slice(-2).join('/');
  const hits = tests.filter((x) => normal(x.name).includes(t));
  const file = base.split('/')[1] ?? '';
  // A file named by its folder and name, or by a name no other suite shares (every package has a suite_test.go).
  return (
    hits.find((x) => x.cites.includes(base)) ??
    (file === 'suite_test.go' ? undefined : hits.find((x) => x.cites.includes(file)))
  );
}

function read(root: string, path: string): string | undefined {
  if (existsSync(join(root, path))) return readFileSync(join(root, path), 'utf8');
  try {
    return execFileSync('git', [`--git-dir=${root}`, 'show', `HEAD:${path}`], { encoding: 'utf8', stdio: 'pipe' });
  } catch {
    return undefined;
  }
}

function commitOf(root: string): string {
  const gitDir = existsSync(join(root, '.git')) ? join(root, '.git') : root;
  try {
    return execFileSync('git', [`--git-dir=${gitDir}`, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return testFiles(p);
    return f.endsWith('.test.ts') ? [p] : [];
  });
}

const cell = (s: string): string => s.replace(/\|/g, '\\|');

function main(argv: string[]): void {
  const arg = (name: string): string => {
    const i = argv.indexOf(name);
    const v = i >= 0 ? argv[i + 1] : undefined;
    if (!v) throw new Error(`missing ${name} <checkout or git dir>`);
    return v;
  };
  const roots = { core: arg('--core'), aws: arg('--aws') };
  const repoRoot = join(import.meta.dirname, '../..');
  const suites = join(repoRoot, 'test/karpenter');
  const tests: TestRef[] = testFiles(suites).flatMap((file) => {
    const source = readFileSync(file, 'utf8');
    return testNames(source).map((name) => ({ file: relative(repoRoot, file), name, cites: source }));
  });
  const lines = [
    '# Karpenter tests and their translations',
    '',
    'Every `It` and `DescribeTable` title of the upstream suites the project translates, with the test that',
    'translates it (its file and name) or "not translated". Generated by `test/karpenter/upstream-map.ts` from local',
    'copies at the commits below; `upstream-map.test.ts` fails when a mapped test name is not in its file.',
    '',
    `- kubernetes-sigs/karpenter ${commitOf(roots.core)}`,
    `- aws/karpenter-provider-aws ${commitOf(roots.aws)}`,
    '',
  ];
  const counts: string[] = [];
  for (const repo of ['core', 'aws'] as const) {
    for (const path of UPSTREAM_FILES[repo]) {
      const source = read(roots[repo], path);
      if (source === undefined) throw new Error(`${repo}: ${path} not found`);
      const titles = upstreamTitles(source);
      const rows = titles.map((title) => {
        const hit = findTest(title, path, tests);
        return hit
          ? `| ${cell(title)} | translated | \`${hit.file}\` | ${cell(hit.name)} |`
          : `| ${cell(title)} | not translated | | |`;
      });
      const mapped = rows.filter((r) => r.includes('| translated |')).length;
      counts.push(`| ${repo === 'core' ? 'karpenter' : 'provider-aws'} \`${path}\` | ${titles.length} | ${mapped} |`);
      lines.push(`## ${repo === 'core' ? 'kubernetes-sigs/karpenter' : 'aws/karpenter-provider-aws'} \`${path}\``, '');
      lines.push('| Upstream | Status | File | Test |', '| --- | --- | --- | --- |', ...rows, '');
    }
  }
  lines.splice(9, 0, '| File | Titles | Translated |', '| --- | --- | --- |', ...counts, '');
  writeFileSync(join(suites, 'UPSTREAM.md'), `${lines.join('\n')}\n`);
}

if (process.argv[1]?.endsWith('upstream-map.ts')) main(process.argv.slice(2));
