import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { problemsOf, VALID_NODECLASS, VALID_NODEPOOL } from '../../testkit/manifests';
import { ValidationError } from '../errors';
import { inputLimits } from './limits';
import { loadManifests, parseManifests } from './parse';

const pod = (name: string, ns?: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
${ns ? `  namespace: ${ns}\n` : ''}spec:
  containers:
    - name: app
      resources:
        requests: {cpu: 500m, memory: 1Gi}
`;

describe('parseManifests', () => {
  it('reads every document of a multi-document file and skips empty ones', () => {
    const set = parseManifests(
      `${VALID_NODEPOOL}---\n---\n# only a comment\n---\n${VALID_NODECLASS}---\n${pod('a')}`,
      'all.yaml',
    );
    expect(set.nodePools.map((n) => n.metadata.name)).toEqual(['default']);
    expect(set.nodeClasses.map((n) => n.metadata.name)).toEqual(['default']);
    expect(set.pods.map((p) => `${p.metadata.namespace}/${p.metadata.name}`)).toEqual(['default/a']);
    expect(set.warnings).toEqual([]);
  });

  it('sorts every supported kind into its list', () => {
    const docs = [
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {template: {spec: {containers: [{name: c}]}}}',
      'apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r}\nspec: {template: {spec: {containers: [{name: c}]}}}',
      'apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s}\nspec: {template: {spec: {containers: [{name: c}]}}}',
      'apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {template: {spec: {containers: [{name: c}]}}}',
      'apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: ds}\nspec: {template: {spec: {containers: [{name: c}]}}}',
      'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: pdb}\nspec: {minAvailable: 1}',
      'apiVersion: v1\nkind: Node\nmetadata: {name: n}',
      'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: pvc}\nspec: {resources: {requests: {storage: 10Gi}}}',
      'apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv}\nspec: {capacity: {storage: 10Gi}}',
      'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: gp3}\nprovisioner: ebs.csi.aws.com',
      'apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000',
      'apiVersion: v1\nkind: Namespace\nmetadata: {name: prod}',
    ];
    const set = parseManifests(docs.join('\n---\n'), 'kinds.yaml');
    expect(
      [
        set.deployments,
        set.replicaSets,
        set.statefulSets,
        set.jobs,
        set.daemonSets,
        set.pdbs,
        set.nodes,
        set.pvcs,
        set.pvs,
        set.storageClasses,
        set.priorityClasses,
        set.namespaces,
      ].map((l) => l.length),
    ).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
  });

  it('warns about unknown kinds instead of failing when asked to ignore them', () => {
    const set = parseManifests(
      `apiVersion: v1\nkind: Service\nmetadata: {name: web}\n---\n${pod('a')}`,
      'svc.yaml',
      inputLimits({ ignoreUnknownKinds: true }),
    );
    expect(set.warnings).toEqual(['svc.yaml#1 Service/web: kind Service is not used by Karpless; skipped']);
    expect(set.pods).toHaveLength(1);
  });

  it('reads the items of a kind: List', () => {
    const set = parseManifests(
      'apiVersion: v1\nkind: List\nitems:\n  - {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n  - {apiVersion: v1, kind: Namespace, metadata: {name: b}}\n',
      'list.yaml',
    );
    expect(set.namespaces.map((n) => n.metadata.name)).toEqual(['a', 'b']);
  });

  it('names the file, document and line of a YAML syntax error', () => {
    const problems = problemsOf(`${pod('a')}---\nkind: Pod\nmetadata:\n  name: [oops\n`, 'broken.yaml');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^broken\.yaml#2: line \d+: /);
  });

  it('rejects a document that is not a map, and one without a kind', () => {
    expect(problemsOf('- a\n- b\n---\nmetadata: {name: x}\n', 'x.yaml')).toEqual([
      'x.yaml#1: a document must be a Kubernetes object (a map with apiVersion and kind)',
      'x.yaml#2 <no kind>/x: kind: required',
    ]);
  });

  it('rejects an unsupported apiVersion of a Karpenter kind', () => {
    expect(problemsOf(VALID_NODEPOOL.replace('karpenter.sh/v1', 'karpenter.sh/v2'), 'np.yaml')).toEqual([
      'np.yaml#1 NodePool/default: apiVersion: "karpenter.sh/v2" is not supported for NodePool; use karpenter.sh/v1',
    ]);
  });

  it('requires the apiVersion of a Karpenter kind', () => {
    expect(problemsOf(VALID_NODEPOOL.replace('apiVersion: karpenter.sh/v1\n', ''), 'np.yaml')).toEqual([
      'np.yaml#1 NodePool/default: apiVersion: required (karpenter.sh/v1)',
    ]);
  });

  it('rejects duplicate keys with their line', () => {
    expect(problemsOf('apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\nkind: Pod\n', 'dup.yaml')).toEqual([
      'dup.yaml#1: line 4: Map keys must be unique',
    ]);
  });

  it('rejects duplicates and names where the first one is', () => {
    expect(problemsOf(`${pod('a')}---\n${pod('a')}---\n${pod('a', 'other')}`, 'dup.yaml')).toEqual([
      'dup.yaml#2 Pod/a: metadata.name: duplicate Pod "a", first defined in dup.yaml#1',
    ]);
  });

  it('collects the problems of every document before throwing', () => {
    const text = `${pod('a').replace('500m', 'lots')}---\n${pod('b').replace('1Gi', '1 GB')}`;
    expect(() => parseManifests(text, 'many.yaml')).toThrow(ValidationError);
    expect(problemsOf(text, 'many.yaml')).toEqual([
      'many.yaml#1 Pod/a: spec.containers[0].resources.requests["cpu"]: "lots" is not a valid quantity (for example 500m, 2, 512Mi, 1Gi)',
      'many.yaml#2 Pod/b: spec.containers[0].resources.requests["memory"]: "1 GB" is not a valid quantity (for example 500m, 2, 512Mi, 1Gi)',
    ]);
  });

  it('warns when a NodePool refers to an EC2NodeClass that is not given', () => {
    const set = parseManifests(VALID_NODEPOOL, 'np.yaml');
    expect(set.warnings).toEqual([
      'np.yaml#1 NodePool/default: spec.template.spec.nodeClassRef.name: EC2NodeClass "default" is not among the manifests',
    ]);
  });
});

describe('loadManifests', () => {
  it('walks folders recursively in sorted order, reading only YAML files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'karpless-api-'));
    await mkdir(join(dir, 'b-sub'));
    await writeFile(join(dir, 'c.yml'), pod('c'));
    await writeFile(join(dir, 'a.yaml'), pod('a'));
    await writeFile(join(dir, 'b-sub', 'b.yaml'), pod('b'));
    await writeFile(join(dir, 'notes.txt'), 'not yaml: [');
    const set = await loadManifests([dir]);
    expect(set.pods.map((p) => p.metadata.name)).toEqual(['a', 'b', 'c']);
  });

  it('reads files and folders together, and reports problems of every file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'karpless-api-'));
    await writeFile(join(dir, 'one.yaml'), pod('one').replace('500m', '-1'));
    await writeFile(join(dir, 'two.yaml'), 'kind: Pod\nmetadata: {name: two}\nspec: {containers: []}\n');
    const err = await loadManifests([join(dir, 'one.yaml'), join(dir, 'two.yaml')]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).problems).toEqual([
      `${join(dir, 'one.yaml')}#1 Pod/one: spec.containers[0].resources.requests["cpu"]: must not be negative, got -1`,
      `${join(dir, 'two.yaml')}#1 Pod/two: spec.containers: must have at least one container`,
    ]);
  });

  it('reports a missing path', async () => {
    const err = await loadManifests(['/no/such/place']).catch((e: unknown) => e);
    expect((err as ValidationError).problems).toEqual([
      '/no/such/place: no such file or folder; expected YAML manifests (Kubernetes objects with apiVersion and kind)',
    ]);
  });

  it('resolves NodePool references across files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'karpless-api-'));
    await writeFile(join(dir, 'nodepool.yaml'), VALID_NODEPOOL);
    await writeFile(join(dir, 'nodeclass.yaml'), VALID_NODECLASS);
    const set = await loadManifests([dir]);
    expect(set.warnings).toEqual([]);
    expect(set.nodePools[0]?.spec.template.spec.nodeClassRef.name).toBe(set.nodeClasses[0]?.metadata.name);
  });
});

describe('namespaces', () => {
  it('gives every namespaced object the default namespace when it has none', () => {
    const set = parseManifests(
      'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\nspec: {}\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b, namespace: shop}\nspec: {maxUnavailable: 1}\n---\napiVersion: v1\nkind: PersistentVolume\nmetadata: {name: v}\nspec: {}\n',
      'ns.yaml',
    );
    expect(set.pvcs[0]?.metadata.namespace).toBe('default');
    expect(set.pdbs[0]?.metadata.namespace).toBe('shop');
    expect(set.pvs[0]?.metadata.namespace).toBeUndefined();
  });
});
