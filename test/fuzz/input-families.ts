// Families of bad and hostile CLI input (docs/api.md, "Input limits"): files that are missing, folders, empty,
// binary or of the wrong shape for each file option; input with nothing in it; YAML merge keys; and inputs sized to
// cost work (an alias bomb, a large map, a file over the full parser's cap). Each case is the argv to run and the
// file its one-line refusal must name. Written into `dir` once per run.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface InputCase {
  family: string;
  name: string;
  argv: string[];
  /** The path the refusal must name. */
  names: string;
}

/** The contents each file option is tried with, besides a missing path and a folder. */
const WRONG_CONTENTS: Record<string, string | Buffer> = {
  'empty.json': '',
  'binary.bin': Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2, 0xff, 0xfe, 0, 9]),
  'object.json': '{"a": 1}',
  'numbers.json': '[1, 2]',
  'string.json': '"x"',
  'yaml.json': 'a: 1\nb: [2]\n',
  'comment.yaml': '# nothing but a comment\n',
};

const MERGE_NODEPOOL_IN_LIST = `apiVersion: v1
kind: List
items:
- apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: base}
  spec: &base
    template:
      spec:
        nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
        requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]
    limits: {cpu: "1000"}
- apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: derived}
  spec:
    <<: *base
    limits: {cpu: "10"}
`;

const MERGE_IN_DISRUPTION = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]
  disruption:
    <<: {consolidationPolicy: WhenEmpty, consolidateAfter: 1h}
`;

const MERGE_IN_POD = `apiVersion: v1
kind: Pod
metadata: {name: p, labels: &l {app: p}}
spec:
  nodeSelector:
    <<: *l
  containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]
`;

/** One anchored map of `keys` labels, reused by `aliases` Pods: small on disk, huge once expanded. */
export function aliasBomb(aliases: number, keys: number): string {
  const out = ['apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p0\n'];
  out.push('    labels: &big\n');
  for (let i = 0; i < keys; i++) out.push(`      k${i}: v\n`);
  out.push('  spec: {containers: [{name: c, image: x}]}\n');
  for (let i = 1; i <= aliases; i++) {
    out.push(`- {apiVersion: v1, kind: Pod, metadata: {name: p${i}, labels: *big}, spec: {containers: [{name: c}]}}\n`);
  }
  return out.join('');
}

/** A flow-style (JSON) List of `count` Pods: text only the full YAML parser reads. */
function jsonPods(count: number): string {
  const pod = (i: number) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `web-${i}`, annotations: { note: 'x'.repeat(900) } },
    spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '10m' } } }] },
  });
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items: Array.from({ length: count }, (_, i) => pod(i)) });
}

/** Writes every file the families read into `dir` and returns the cases. */
export async function inputCases(dir: string): Promise<InputCase[]> {
  const cases: InputCase[] = [];
  const empty = join(dir, 'empty-folder');
  const noYaml = join(dir, 'no-yaml-folder');
  await mkdir(empty, { recursive: true });
  await mkdir(noYaml, { recursive: true });
  await writeFile(join(noYaml, 'README.txt'), 'no manifests here\n');
  for (const [name, text] of Object.entries(WRONG_CONTENTS)) await writeFile(join(dir, name), text);
  const files = [join(dir, 'missing.json'), empty, ...Object.keys(WRONG_CONTENTS).map((n) => join(dir, n))];
  for (const file of files) {
    cases.push({ family: 'explain --store', name: file, argv: ['explain', 'x', '--store', file], names: file });
    cases.push({ family: '--catalog', name: file, argv: ['catalog', '--catalog', file], names: file });
    cases.push({ family: '--scenario', name: file, argv: ['simulate', '--scenario', file], names: file });
  }
  const nothing = [empty, noYaml, join(dir, 'empty.json'), join(dir, 'comment.yaml')];
  for (const path of nothing) {
    cases.push({ family: 'empty input', name: `migrate ${path}`, argv: ['migrate', path], names: path });
    cases.push({ family: 'empty input', name: `simulate ${path}`, argv: ['simulate', '-f', path], names: path });
  }
  cases.push({ family: 'empty input', name: 'migrate -', argv: ['migrate', '-'], names: '<stdin>' });
  const merges = { 'merge-list.yaml': MERGE_NODEPOOL_IN_LIST, 'merge-disruption.yaml': MERGE_IN_DISRUPTION };
  for (const [name, text] of Object.entries({ ...merges, 'merge-pod.yaml': MERGE_IN_POD })) {
    const file = join(dir, name);
    await writeFile(file, text);
    cases.push({ family: 'merge keys', name: `simulate ${name}`, argv: ['simulate', '-f', file], names: file });
    cases.push({ family: 'merge keys', name: `migrate ${name}`, argv: ['migrate', file], names: file });
  }
  return cases;
}

/** Hostile sizes: each must be refused (or, for the large map, read) within the fuzz bound. */
export async function workCases(dir: string): Promise<InputCase[]> {
  const bomb = join(dir, 'alias-bomb.yaml');
  await writeFile(bomb, aliasBomb(899, 5000));
  const flow = join(dir, 'flow-17mib.json');
  await writeFile(flow, jsonPods(17_500));
  return [
    { family: 'work', name: 'alias bomb (899 aliases of 5,000 keys)', argv: ['simulate', '-f', bomb], names: bomb },
    { family: 'work', name: '17 MiB of JSON', argv: ['simulate', '-f', flow], names: flow },
  ];
}
