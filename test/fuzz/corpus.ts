// The fuzz suite's seeds and the edits that make them invalid. Each base document is valid on its own; each edit
// breaks one field in a way Kubernetes or Karpenter refuses, so the CLI must exit non-zero with a clear error.
import fc from 'fast-check';
import { stringify } from 'yaml';

export type Doc = Record<string, unknown>;

export const BASE_DOCS: Record<string, () => Doc> = {
  NodePool: () => ({
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'general' },
    spec: {
      template: {
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
        },
      },
      disruption: {
        consolidationPolicy: 'WhenEmptyOrUnderutilized',
        consolidateAfter: '1m',
        budgets: [{ nodes: '10%' }],
      },
      limits: { cpu: '1000' },
      weight: 10,
    },
  }),
  EC2NodeClass: () => ({
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name: 'default' },
    spec: {
      role: 'KarpenterNodeRole-demo',
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
    },
  }),
  Pod: () => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', labels: { app: 'p' } },
    spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '500m', memory: '256Mi' } } }] },
  }),
  Deployment: () => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '1', memory: '1Gi' } } }] },
      },
    },
  }),
};

/** One invalid edit: the kind it applies to, the field path, and the values that break it. */
export interface InvalidEdit {
  kind: string;
  path: (string | number)[];
  values: unknown[];
}

const QUANTITY_BAD = ['lots', '1 ', ' 1', '1e309', '-1', '1Gb', null, [], {}, true, '0x10', '1..2'];
const NAME_BAD = ['', 'x'.repeat(254), 5, [], null];

export const INVALID_EDITS: InvalidEdit[] = [
  { kind: 'Pod', path: ['spec', 'containers', 0, 'resources', 'requests', 'cpu'], values: QUANTITY_BAD },
  { kind: 'Pod', path: ['spec', 'containers', 0, 'resources', 'requests', 'memory'], values: QUANTITY_BAD },
  { kind: 'Pod', path: ['metadata', 'name'], values: NAME_BAD },
  { kind: 'Pod', path: ['spec', 'containers'], values: [[], 'c', null, 7] },
  { kind: 'Pod', path: ['spec', 'tolerations'], values: ['x', 3, [{ operator: 'Sometimes' }]] },
  { kind: 'Pod', path: ['spec', 'nodeSelector'], values: ['x', { a: 5 }, { a: 'not a valid value!' }] },
  { kind: 'Pod', path: ['kind'], values: ['Pdo', 'pod', '', 42] },
  {
    kind: 'Pod',
    path: ['spec', 'topologySpreadConstraints'],
    values: [
      [{ maxSkew: 0, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule' }],
      [{ maxSkew: 1, whenUnsatisfiable: 'Sometimes', topologyKey: 'x' }],
      'spread',
    ],
  },
  {
    kind: 'Pod',
    path: ['spec', 'affinity'],
    values: [
      {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Bogus' }] }],
          },
        },
      },
      { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: 'x' }] } },
      'close',
    ],
  },
  {
    kind: 'NodePool',
    path: ['spec', 'template', 'spec', 'requirements', 0, 'operator'],
    values: ['Bogus', '', 3, null],
  },
  { kind: 'NodePool', path: ['spec', 'disruption', 'consolidateAfter'], values: ['5 minutes', '-1s', 30, 'Forever'] },
  { kind: 'NodePool', path: ['spec', 'disruption', 'consolidationPolicy'], values: ['WhenIdle', '', 1] },
  { kind: 'NodePool', path: ['spec', 'disruption', 'budgets', 0, 'nodes'], values: ['110%', 'ten', -1, '1.5'] },
  { kind: 'NodePool', path: ['spec', 'weight'], values: [0, 101, 'x', 1.5] },
  { kind: 'NodePool', path: ['spec', 'limits', 'cpu'], values: QUANTITY_BAD.filter((v) => v !== null) },
  { kind: 'NodePool', path: ['metadata', 'name'], values: ['p'.repeat(64), ''] },
  { kind: 'NodePool', path: ['kind'], values: ['NodePol', 'Nodepool', 'Provisioners'] },
  { kind: 'NodePool', path: ['apiVersion'], values: ['karpenter.sh/v2', 7] },
  { kind: 'EC2NodeClass', path: ['spec', 'amiSelectorTerms'], values: [[], 'al2023', [{ alias: 'nope@latest' }]] },
  { kind: 'EC2NodeClass', path: ['spec', 'subnetSelectorTerms'], values: [[], 'x', [{}]] },
  { kind: 'EC2NodeClass', path: ['spec', 'role'], values: [5, ['r']] },
  { kind: 'Deployment', path: ['spec', 'replicas'], values: [-1, 'three', 1.5, 1_000_000_000] },
  { kind: 'Deployment', path: ['spec', 'selector'], values: [{ matchLabels: { app: 'other' } }, 'web'] },
  {
    kind: 'Deployment',
    path: ['spec', 'template', 'spec', 'containers', 0, 'resources', 'limits'],
    values: [{ cpu: '100m' }, 'x'],
  },
];

/** Broken YAML: each is refused by the parser or the limits, never by a crash. */
export const BROKEN_YAML: string[] = [
  'apiVersion: v1\nkind: Pod\nmetadata: {name: a\n',
  'a: [1, 2\n',
  'a: "unterminated\n',
  'a: 1\na: 2\n',
  '\tkind: Pod\n',
  `a: ${'['.repeat(3000)}${']'.repeat(3000)}\n`,
  `${'- '.repeat(200)}x\n`,
  'a: &x [*x]\n',
  'a: *nowhere\n',
  '- just\n- a list\n',
  '"a string"\n',
  '42\n',
  'kind: List\nitems: [1, 2]\n',
  '--- !!binary x\n',
  'a: !!int "not a number"\n',
  '%YAML 9.9\n---\na: 1\n',
  `${'a: 1\n'.repeat(2)}---\n{`,
  'metadata: {name: [a}\n',
];

/** Sets `value` at `path`, creating maps on the way. */
export function setPath(doc: Doc, path: (string | number)[], value: unknown): Doc {
  const copy = structuredClone(doc);
  let at: Record<string | number, unknown> = copy;
  for (const [i, key] of path.entries()) {
    if (i === path.length - 1) {
      at[key] = value;
      break;
    }
    if (typeof at[key] !== 'object' || at[key] === null) at[key] = typeof path[i + 1] === 'number' ? [] : {};
    at = at[key] as Record<string | number, unknown>;
  }
  return copy;
}

export const toYaml = (docs: Doc[]): string => docs.map((d) => stringify(d, { lineWidth: 0 })).join('---\n');

/** Every invalid edit with every value: in a file with the rest of a valid cluster, and alone in a List. */
export function invalidManifestFiles(): { name: string; yaml: string }[] {
  const out: { name: string; yaml: string }[] = [];
  for (const edit of INVALID_EDITS) {
    const base = BASE_DOCS[edit.kind];
    if (!base) throw new Error(`no base document for ${edit.kind}`);
    for (const [i, value] of edit.values.entries()) {
      const broken = setPath(base(), edit.path, value);
      const others = Object.entries(BASE_DOCS)
        .filter(([k]) => k !== edit.kind)
        .map(([, make]) => make());
      const name = `${edit.kind}.${edit.path.join('.')}#${i}`;
      out.push({ name, yaml: toYaml([...others, broken]) });
      // The same object inside a `kind: List`, as `kubectl get -o yaml` prints a dump.
      out.push({ name: `${name} in a List`, yaml: toYaml([{ apiVersion: 'v1', kind: 'List', items: [broken] }]) });
    }
  }
  for (const [i, yaml] of BROKEN_YAML.entries()) out.push({ name: `broken-yaml#${i}`, yaml });
  return out;
}

/** Every path into a document, to its maps, lists and leaves. */
export function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [prefix];
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) out.push(...pathsOf(v, [...prefix, i]));
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...prefix, k]));
  }
  return out;
}

/** Values no field expects: any JSON, and the numbers and strings that broke parsers before. */
export const oddValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(null, '', ' ', '1e309', '-1', Number.POSITIVE_INFINITY, Number.NaN, -0, 2 ** 64, '1 ', '0x10'),
);

/** A valid document with one field, anywhere, replaced by an arbitrary value (valid or not). */
export const mutatedDoc = fc
  .constantFrom(...Object.keys(BASE_DOCS))
  .chain((kind) => {
    const make = BASE_DOCS[kind] as () => Doc;
    return fc.tuple(fc.constant(make), fc.constantFrom(...pathsOf(make()).filter((p) => p.length > 0)), oddValue);
  })
  .map(([make, path, value]) => setPath(make(), path, value));
