// The repository keeps its layers (docs/architecture.md, "Layers"): imports only go down the ranks and stay within
// each group's table, modules are entered through their index.ts, the shipped entry points reach no test support,
// handlers do not reach into each other, production code never uses test support, the engine uses no SDK, and
// hand-written files and functions stay short.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  checkLayers,
  functionsOf,
  isShippedEntry,
  isTestSupport,
  type LayerOptions,
  repositoryFiles,
  type SourceFile,
  type Violation,
} from './layers';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const MAX_LINES = 600;

/** Files the length rule does not apply to, and why (none today: the catalog's family table is split by group). */
const GENERATED_OR_DATA: Record<string, string> = {};

const MAX_FUNCTION_LINES = 80;

const DECLARATIVE_CONSTRUCT = 'CDK construct body: a declarative resource list';

/** Production functions the length rule does not apply to (`path#name`, as functionsOf names them), and why. */
const LONG_FUNCTIONS: Record<string, string> = {
  'stacks/cluster-stack.ts#ClusterStack.constructor': DECLARATIVE_CONSTRUCT,
  'stacks/constructs/control-functions.ts#ControlFunctions.constructor': DECLARATIVE_CONSTRUCT,
  'stacks/constructs/operations.ts#Operations.constructor': DECLARATIVE_CONSTRUCT,
  'stacks/constructs/operations.ts#Operations.buildDashboard': 'CDK dashboard: a declarative widget list',
  'stacks/constructs/schedules.ts#Schedules.constructor': DECLARATIVE_CONSTRUCT,
  'stacks/permissions.ts#statementsFor': 'declarative IAM statements, one switch case per permission',
  'forwarder/manifests.ts#forwarderManifests': 'a declarative list of Kubernetes manifests',
  'cli/format/html/scenario-report.ts#renderScenarioHtml': "an HTML template: the report page's markup in order",
};

const OPTIONS: LayerOptions = {
  maxLines: MAX_LINES,
  longFileExemptions: GENERATED_OR_DATA,
  maxFunctionLines: MAX_FUNCTION_LINES,
  longFunctionExemptions: LONG_FUNCTIONS,
};

describe('the repository', () => {
  const files = repositoryFiles(ROOT);
  const violations = checkLayers(files, OPTIONS);

  it('reads the whole tree', () => {
    const paths = new Set(files.map((f) => f.path));
    for (const p of [
      'shared/ports.ts',
      'functions/provisioner/handler.ts',
      'local/index.ts',
      'testkit/builders.ts',
      'cli/bin.mjs',
    ]) {
      expect(paths).toContain(p);
    }
  });

  it('breaks no layer rule', () => {
    expect(violations).toEqual([]);
  });

  it('exempts from the length rule only files that exist', () => {
    const paths = new Set(files.map((f) => f.path));
    expect(Object.keys(GENERATED_OR_DATA).filter((p) => !paths.has(p))).toEqual([]);
  });

  it('exempts from the function length rule only functions that are still too long', () => {
    const long = new Set(
      files
        .filter((f) => !isTestSupport(f.path))
        .flatMap((f) => functionsOf(f.path, f.text).map((fn) => ({ key: `${f.path}#${fn.name}`, lines: fn.lines })))
        .filter((fn) => fn.lines > MAX_FUNCTION_LINES)
        .map((fn) => fn.key),
    );
    expect(Object.keys(LONG_FUNCTIONS).filter((k) => !long.has(k))).toEqual([]);
  });

  it('finds every shipped entry point', () => {
    const entries = files.map((f) => f.path).filter(isShippedEntry);
    expect(entries).toEqual([
      'cli/bin.mjs',
      'forwarder/main.ts',
      'functions/gc/handler.ts',
      'functions/interruption/handler.ts',
      'functions/provisioner/handler.ts',
      'functions/termination/handler.ts',
      'stacks/app.ts',
    ]);
  });
});

describe('the checker', () => {
  const check = (...files: SourceFile[]) =>
    checkLayers(files, {
      maxLines: 5,
      longFileExemptions: { 'shared/catalog/data.ts': 'generated' },
      maxFunctionLines: 3,
      longFunctionExemptions: { 'stacks/s.ts#S.constructor': 'declarative' },
    });
  const file = (path: string, ...imports: string[]): SourceFile => ({
    path,
    text: imports.map((s, i) => `import { x${i} } from '${s}';`).join('\n'),
  });
  const rules = (vs: Violation[]) => vs.map((v) => `${v.rule} ${v.file} ${v.detail}`);

  it('flags shared/ importing a deployable, a harness or testkit', () => {
    const up = ['functions', 'forwarder', 'local', 'cli', 'bench', 'stacks', 'testkit'];
    const vs = check(file('shared/sim/a.ts', ...up.map((t) => `../../${t}/x`)));
    expect(vs.filter((v) => v.rule === 'shared-imports-up')).toHaveLength(up.length);
  });

  it('lets shared/ tests use testkit, and shared/ import shared/', () => {
    expect(
      check(file('shared/sim/a.test.ts', '../../testkit/builders'), file('shared/sim/b.ts', '../api/kube')),
    ).toEqual([]);
    expect(rules(check(file('shared/sim/a.test.ts', '../../functions/gc/handler')))).toEqual([
      'shared-imports-up shared/sim/a.test.ts ../../functions/gc/handler',
    ]);
  });

  it("flags a handler importing another handler's folder, not the shared function folders", () => {
    expect(rules(check(file('functions/gc/handler.ts', '../provisioner/wiring')))).toEqual([
      'handler-imports-handler functions/gc/handler.ts ../provisioner/wiring',
    ]);
    expect(
      check(
        file('functions/gc/handler.ts', '../_wiring/env', '../middleware', './sweep'),
        file('functions/_wiring/env.ts', '../middleware/observability'),
      ),
    ).toEqual([]);
    expect(rules(check(file('functions/middleware/x.ts', '../gc/handler')))).toEqual([
      'handler-imports-handler functions/middleware/x.ts ../gc/handler',
    ]);
  });

  it('flags production code importing testkit, test/ or a test file; bench may use testkit and the fake API', () => {
    expect(
      rules(
        check(
          file('local/a.ts', '../testkit/bed'),
          file('cli/b.ts', '../test/fake-kube-api/server'),
          file('shared/api/c.ts', './parse.test'),
        ),
      ),
    ).toEqual([
      'production-imports-test local/a.ts ../testkit/bed',
      'production-imports-test cli/b.ts ../test/fake-kube-api/server',
      'production-imports-test shared/api/c.ts ./parse.test',
    ]);
    expect(
      check(
        file('bench/a.ts', '../testkit/builders', '../test/fake-kube-api/server'),
        file('testkit/b.ts', '../test/x'),
      ),
    ).toEqual([]);
    expect(rules(check(file('bench/a.ts', '../test/e2e/helpers')))).toEqual([
      'production-imports-test bench/a.ts ../test/e2e/helpers',
    ]);
  });

  it('flags an engine module importing an SDK, not an adapter', () => {
    const sdks = [
      '@aws-sdk/client-ec2',
      '@smithy/signature-v4',
      '@kubernetes/client-node',
      '@aws-lambda-powertools/logger',
    ];
    for (const engine of [
      'shared/api/a.ts',
      'shared/controllers/a.ts',
      'shared/errors.ts',
      'shared/metrics.ts',
      'shared/ports.ts',
    ]) {
      expect(check(file(engine, ...sdks)).filter((v) => v.rule === 'engine-imports-sdk')).toHaveLength(sdks.length);
    }
    expect(check(file('shared/aws/a.ts', ...sdks), file('shared/kube/a.ts', '@kubernetes/client-node'))).toEqual([]);
  });

  it('reads dynamic imports and re-exports', () => {
    const text = "export { a } from '../../functions/x';\nconst m = await import('../../local');\n";
    expect(
      check({ path: 'shared/sim/a.ts', text })
        .filter((v) => v.rule === 'shared-imports-up')
        .map((v) => v.detail),
    ).toEqual(['../../functions/x', '../../local']);
  });

  const only = (rule: string, vs: Violation[]) => rules(vs.filter((v) => v.rule === rule));

  it('flags a production import up the ranks or sideways, not down and not from a test', () => {
    const up = check(
      file('shared/api/a.ts', '../catalog/x'),
      file('shared/scheduling/a.ts', '../disruption/x'),
      file('shared/controllers/a.ts', '../sim/x'),
      file('shared/aws/a.ts', '../kube/x'),
      file('shared/errors.ts', './metrics'),
      file('shared/ports.ts', './events/x'),
      file('forwarder/a.ts', '../stacks/x'),
      file('local/a.ts', '../cli/x'),
      file('cli/a.ts', '../bench/x'),
    );
    expect(only('imports-up', up)).toEqual([
      'imports-up shared/api/a.ts ../catalog/x',
      'imports-up shared/scheduling/a.ts ../disruption/x',
      'imports-up shared/controllers/a.ts ../sim/x',
      'imports-up shared/aws/a.ts ../kube/x',
      'imports-up shared/errors.ts ./metrics',
      'imports-up shared/ports.ts ./events/x',
      'imports-up forwarder/a.ts ../stacks/x',
      'imports-up local/a.ts ../cli/x',
      'imports-up cli/a.ts ../bench/x',
    ]);
    const down = check(
      file('shared/disruption/a.ts', '../scheduling', '../catalog/x', '../api/x', '../errors', '../metrics'),
      file('shared/sim/a.ts', '../controllers', '../events', '../ports', './b'),
      file('cli/a.ts', '../local/x', '../stacks/x', '../shared/sim'),
      file('bench/a.ts', '../cli/io'),
      file('shared/api/a.test.ts', '../sim/x', '../controllers/x'),
    );
    expect(only('imports-up', down)).toEqual([]);
  });

  it('flags an adapter, the simulator, the forwarder or the stacks importing past their table', () => {
    const vs = check(
      file('shared/aws/a.ts', '../controllers', '../disruption/x', '../ports', '../metrics', '../api/kube'),
      file('shared/kube/a.ts', '../scheduling', '../catalog/x', '../messages'),
      file('shared/sim/a.ts', '../kube', '../aws/x', '../controllers'),
      file('forwarder/a.ts', '../shared/disruption/repair', '../shared/api/pending', '../shared/messages'),
      file('stacks/a.ts', '../shared/controllers', '../shared/events', '../shared/aws/dynamo/schema'),
    );
    expect(only('import-not-allowed', vs)).toEqual([
      'import-not-allowed shared/aws/a.ts ../controllers',
      'import-not-allowed shared/aws/a.ts ../disruption/x',
      'import-not-allowed shared/kube/a.ts ../scheduling',
      'import-not-allowed shared/sim/a.ts ../kube',
      'import-not-allowed shared/sim/a.ts ../aws/x',
      'import-not-allowed forwarder/a.ts ../shared/disruption/repair',
      'import-not-allowed stacks/a.ts ../shared/controllers',
    ]);
  });

  it('flags an import past a module index.ts, not into an open folder, a listed entry or from a test', () => {
    const vs = check(
      file('shared/scheduling/index.ts', './solver'),
      file('shared/scheduling/solver.ts'),
      file('shared/sim/index.ts'),
      file('shared/sim/world.ts', './scenario/runner', './rng'),
      file('shared/sim/rng.ts'),
      file('shared/sim/scenario/index.ts', './runner'),
      file('shared/sim/scenario/runner.ts', '../rng', '../../scheduling'),
      file('shared/aws/ec2/index.ts'),
      file('shared/aws/ec2/fleet.ts'),
      file('shared/aws/cloud.ts', './ec2/fleet', './ec2', './clients'),
      file('shared/controllers/a.ts', '../scheduling/solver', '../scheduling', '../api/kube'),
      file('shared/controllers/a.test.ts', '../scheduling/solver'),
      file('local/a.ts', '../shared/sim/world', '../shared/sim/rng', '../shared/aws/cloud'),
      file('cli/a.ts', '../shared/sim/scenario', '../shared/sim/scenario/runner'),
    );
    expect(only('imports-module-internals', vs)).toEqual([
      'imports-module-internals shared/sim/world.ts ./scenario/runner',
      'imports-module-internals shared/aws/cloud.ts ./ec2/fleet',
      'imports-module-internals shared/controllers/a.ts ../scheduling/solver',
      'imports-module-internals local/a.ts ../shared/sim/rng',
      'imports-module-internals cli/a.ts ../shared/sim/scenario/runner',
    ]);
  });

  it('flags test support reachable from a shipped entry point, through any chain of imports', () => {
    const vs = check(
      { path: 'cli/bin.mjs', text: "const { loadMain } = await import('./launch.mjs');\n" },
      { path: 'cli/launch.mjs', text: "export const loadMain = async () => (await import('./main.ts')).main;\n" },
      file('cli/main.ts', './commands/bench'),
      file('cli/commands/bench.ts', '../../bench/run'),
      file('bench/run.ts', '../testkit/builders'),
      file('testkit/builders.ts'),
      file('functions/gc/handler.ts', './sweep'),
      { path: 'functions/gc/sweep.ts', text: "export { x } from '../../shared/a.test';\n" },
      file('shared/a.test.ts'),
      file('forwarder/main.ts', './http'),
      file('forwarder/http.ts', '../test/fake-kube-api/server'),
      file('test/fake-kube-api/server.ts'),
      file('stacks/app.ts', './stack'),
      file('stacks/stack.ts', '../shared/api/x'),
      file('shared/api/x.ts'),
      file('local/a.ts', '../testkit/builders'),
    );
    expect(only('shipped-reaches-test', vs)).toEqual([
      'shipped-reaches-test cli/bin.mjs cli/bin.mjs -> cli/launch.mjs -> cli/main.ts -> cli/commands/bench.ts -> bench/run.ts -> testkit/builders.ts',
      'shipped-reaches-test functions/gc/handler.ts functions/gc/handler.ts -> functions/gc/sweep.ts -> shared/a.test.ts',
      'shipped-reaches-test forwarder/main.ts forwarder/main.ts -> forwarder/http.ts -> test/fake-kube-api/server.ts',
    ]);
  });

  it('flags a production function over the line limit unless it is listed, and names it by its scope', () => {
    const body = '{\n  a();\n  b();\n}';
    const text = [
      `export function long() ${body}`,
      'const short = () => {\n  a();\n};',
      `class C {\n  m() ${body}\n}`,
      `const handlers = { onEvent: function () ${body} };`,
      'function outer() {\n  const inner = () => {\n    a();\n  };\n  return inner;\n}',
      `[1].map(() => ${body});`,
    ].join('\n');
    expect(only('function-too-long', check({ path: 'shared/api/f.ts', text }))).toEqual([
      'function-too-long shared/api/f.ts long 4',
      'function-too-long shared/api/f.ts C.m 4',
      'function-too-long shared/api/f.ts onEvent 4',
      'function-too-long shared/api/f.ts outer 6',
    ]);
    expect(only('function-too-long', check({ path: 'shared/api/f.test.ts', text }))).toEqual([]);
    const stack = `class S {\n  constructor() ${body}\n  n() ${body}\n}`;
    expect(only('function-too-long', check({ path: 'stacks/s.ts', text: stack }))).toEqual([
      'function-too-long stacks/s.ts S.n 4',
    ]);
  });

  it('flags a file over the line limit unless it is listed as generated', () => {
    const long = 'const a = 1;\n'.repeat(6);
    expect(rules(check({ path: 'shared/api/big.ts', text: long }))).toEqual(['file-too-long shared/api/big.ts 6']);
    expect(check({ path: 'shared/api/ok.ts', text: 'const a = 1;\n'.repeat(5) })).toEqual([]);
    expect(check({ path: 'shared/catalog/data.ts', text: long })).toEqual([]);
  });
});
