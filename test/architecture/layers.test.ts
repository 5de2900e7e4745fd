// The repository keeps its layers (docs/architecture.md, "Layers"): imports only go down, handlers do not reach into
// each other, production code never uses test support, the engine uses no SDK, and hand-written files stay short.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkLayers, type LayerOptions, repositoryFiles, type SourceFile, type Violation } from './layers';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const MAX_LINES = 600;

/** Files the length rule does not apply to, and why (none today: the catalog's family table is split by group). */
const GENERATED_OR_DATA: Record<string, string> = {};

/**
 * Temporary allowance: files that break a rule today and are being split or moved by the renovation of issue 18.
 * Each entry names its owner; the owners remove their entries, and this list must end empty.
 */
const KNOWN_VIOLATIONS: readonly Omit<Violation, 'detail'>[] = [];

const allowed = (v: Violation): boolean => KNOWN_VIOLATIONS.some((k) => k.rule === v.rule && k.file === v.file);

const OPTIONS: LayerOptions = { maxLines: MAX_LINES, longFileExemptions: GENERATED_OR_DATA };

describe('the repository', () => {
  const files = repositoryFiles(ROOT);
  const violations = checkLayers(files, OPTIONS);

  it('reads the whole tree', () => {
    const paths = new Set(files.map((f) => f.path));
    for (const p of ['shared/ports.ts', 'functions/provisioner/handler.ts', 'local/index.ts', 'testkit/builders.ts']) {
      expect(paths).toContain(p);
    }
  });

  it('breaks no layer rule beyond the known, owned allowances', () => {
    expect(violations.filter((v) => !allowed(v))).toEqual([]);
  });

  it('keeps no allowance that is no longer needed', () => {
    const stale = KNOWN_VIOLATIONS.filter((k) => !violations.some((v) => v.rule === k.rule && v.file === k.file));
    expect(stale).toEqual([]);
  });

  it('exempts from the length rule only files that exist', () => {
    const paths = new Set(files.map((f) => f.path));
    expect(Object.keys(GENERATED_OR_DATA).filter((p) => !paths.has(p))).toEqual([]);
  });
});

describe('the checker', () => {
  const check = (...files: SourceFile[]) =>
    checkLayers(files, { maxLines: 5, longFileExemptions: { 'shared/catalog/data.ts': 'generated' } });
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
    for (const engine of ['shared/api/a.ts', 'shared/controllers/a.ts', 'shared/errors.ts', 'shared/ports.ts']) {
      expect(check(file(engine, ...sdks)).filter((v) => v.rule === 'engine-imports-sdk')).toHaveLength(sdks.length);
    }
    expect(check(file('shared/aws/a.ts', ...sdks), file('shared/kube/a.ts', '@kubernetes/client-node'))).toEqual([]);
  });

  it('reads dynamic imports and re-exports', () => {
    const text = "export { a } from '../../functions/x';\nconst m = await import('../../local');\n";
    expect(check({ path: 'shared/sim/a.ts', text }).map((v) => v.detail)).toEqual(['../../functions/x', '../../local']);
  });

  it('flags a file over the line limit unless it is listed as generated', () => {
    const long = 'const a = 1;\n'.repeat(6);
    expect(rules(check({ path: 'shared/api/big.ts', text: long }))).toEqual(['file-too-long shared/api/big.ts 6']);
    expect(check({ path: 'shared/api/ok.ts', text: 'const a = 1;\n'.repeat(5) })).toEqual([]);
    expect(check({ path: 'shared/catalog/data.ts', text: long })).toEqual([]);
  });
});
