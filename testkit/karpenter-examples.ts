// Running Karpenter's own example YAML (test/fixtures/karpenter-examples, copied unchanged) through the CLI as a user
// would: `karpless simulate -f` with the example files, `--scenario` when reservations or explain are needed. Docs
// blocks that are fragments of an object are set, as text and byte for byte, inside an otherwise complete object.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SimulateReport } from '../cli/format/simulate-report';
import { bufferIO } from '../cli/io';
import { main } from '../cli/main';
import type { DecisionRecord } from '../shared/api/nodeclaim';
import { EMBEDDED_CATALOG_PATH } from '../shared/catalog/load';
import type { ScenarioReport } from '../shared/sim/scenario/report';

const FIXTURES = fileURLToPath(new URL('../test/fixtures/karpenter-examples/', import.meta.url));

/** The path of an example by its path in aws/karpenter-provider-aws (`examples/v1/spot.yaml`). */
export const example = (path: string): string => join(FIXTURES, path);
/** A karpenter.sh docs block by its page folder and name (`concepts/nodeoverlays/custom-devices`). */
export const docsExample = (path: string): string => example(`website/content/en/docs/${path}.yaml`);
export const exampleText = (path: string): string => readFileSync(path, 'utf8');

/** A temporary folder for the workloads and wrappers a test adds around the examples. */
export function scratch(prefix: string): (name: string, text: string) => string {
  const dir = mkdtempSync(join(tmpdir(), `karpless-${prefix}-`));
  return (name, text) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
}

/** `text` with every line indented by `spaces` (a bare docs fragment moved under the key it belongs to). */
export const indent = (text: string, spaces: number): string =>
  text
    .split('\n')
    .map((l) => (l === '' ? l : `${' '.repeat(spaces)}${l}`))
    .join('\n');

/**
 * Loads what every `simulate` run of a test file needs once, for its beforeAll: the CLI's simulate commands with the
 * engine behind them, and HiGHS compiled. That is most of a file's CPU (1.2–1.6 s under tsx, measured), which
 * otherwise lands on whichever test runs first and, on a loaded runner, pushes it past its timeout.
 */
export async function loadSimulator(): Promise<void> {
  const [, { loadLpSolver }] = await Promise.all([
    import('../cli/commands/simulate'),
    import('../shared/scheduling/lp'),
  ]);
  await loadLpSolver();
}

export interface CliRun<T> {
  code: number;
  out?: T;
  stderr: string;
}

/** `karpless simulate -f <each file> -o json [...extra]`. */
export async function simulateFiles(files: string[], ...extra: string[]): Promise<CliRun<SimulateReport>> {
  const io = bufferIO();
  const code = await main(['simulate', ...files.flatMap((f) => ['-f', f]), '-o', 'json', ...extra], io);
  return { code, stderr: io.stderr.join(''), ...(code === 0 ? { out: JSON.parse(io.stdout.join('')) } : {}) };
}

export interface ScenarioRun extends CliRun<ScenarioReport> {
  decisions: DecisionRecord[];
  /** `karpless explain NODECLAIM --store <the decisions>`: its stdout. */
  explain(nodeClaim: string): Promise<string>;
}

/** `karpless simulate --scenario FILE -o json --decisions-out ...`. */
export async function simulateScenario(path: string, ...extra: string[]): Promise<ScenarioRun> {
  const store = `${path}.decisions.json`;
  const io = bufferIO();
  const code = await main(['simulate', '--scenario', path, '-o', 'json', '--decisions-out', store, ...extra], io);
  const ok = code === 0;
  return {
    code,
    stderr: io.stderr.join(''),
    ...(ok ? { out: JSON.parse(io.stdout.join('')) } : {}),
    decisions: ok ? (JSON.parse(readFileSync(store, 'utf8')) as DecisionRecord[]) : [],
    async explain(nodeClaim) {
      const e = bufferIO();
      const c = await main(['explain', nodeClaim, '--store', store], e);
      if (c !== 0) throw new Error(`explain ${nodeClaim} exited ${c}: ${e.stderr.join('')}`);
      return e.stdout.join('');
    },
  };
}

/** The embedded catalog moved to another region (zone names renamed, everything else kept), for the docs examples
 * pinned to us-west-2 zones. */
export function catalogInRegion(write: (name: string, text: string) => string, region: string): string {
  return write(`${region}.json`, readFileSync(EMBEDDED_CATALOG_PATH, 'utf8').replaceAll('us-east-1', region));
}

export interface ExamplePod {
  name: string;
  /** How many pods (`<name>-0`, `<name>-1`, ...); one named `name` when absent. */
  count?: number;
  requests?: Record<string, string>;
  /** Extended resources are requested through limits, as Kubernetes requires. */
  limits?: Record<string, string>;
  nodeSelector?: Record<string, string>;
}

/** Bare pods as a multi-document YAML file (JSON is YAML), the workload a test adds to an example. */
export function podsYaml(pods: ExamplePod[]): string {
  const docs = pods.flatMap((p) => {
    const names = p.count === undefined ? [p.name] : Array.from({ length: p.count }, (_, i) => `${p.name}-${i}`);
    return names.map((name) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default' },
      spec: {
        ...(p.nodeSelector ? { nodeSelector: p.nodeSelector } : {}),
        containers: [
          {
            name: 'app',
            image: 'app',
            resources: {
              requests: p.requests ?? { cpu: '1', memory: '1Gi' },
              ...(p.limits ? { limits: p.limits } : {}),
            },
          },
        ],
      },
    }));
  });
  return docs.map((d) => JSON.stringify(d)).join('\n---\n');
}
