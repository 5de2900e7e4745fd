import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { CONTROLLER_GROUP } from '../../shared/api/controller-group';
import { bufferIO } from '../io';
import { main } from '../main';

const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/karpless-prod.fifo';

async function run(args: string[]) {
  const io = bufferIO();
  const code = await main(args, io);
  return { code, out: io.stdout.join(''), err: io.stderr.join('') };
}

type Doc = {
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
  spec?: Record<string, unknown>;
  subjects?: { kind: string; name: string }[];
};

type Probe = { httpGet: { path: string } };
type PodTemplate = {
  priorityClassName: string;
  tolerations: unknown[];
  securityContext: { runAsNonRoot: boolean };
  volumes?: { name: string; configMap: { name: string } }[];
  containers: {
    image: string;
    command?: string[];
    args?: string[];
    volumeMounts?: { name: string; mountPath: string; readOnly: boolean }[];
    env: unknown[];
    resources: { requests: Record<string, string> };
    securityContext: Record<string, unknown>;
    livenessProbe: Probe;
    readinessProbe: Probe;
  }[];
};
type DeploymentDoc = {
  spec: { replicas: number; template: { metadata: { annotations?: Record<string, string> }; spec: PodTemplate } };
};

function parse(yaml: string): Doc[] {
  const docs = parseAllDocuments(yaml);
  for (const d of docs) expect(d.errors).toEqual([]);
  return docs.map((d) => d.toJS() as Doc);
}

/** Flattens rules to "group/resource:verb" grants so equality ignores how rules are grouped. */
function grants(rules: Doc['rules']): string[] {
  return (rules ?? [])
    .flatMap((r) => r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${g}/${res}:${v}`))))
    .sort();
}

const grant = (group: string, resources: string[], verbs: string[]) =>
  resources.flatMap((r) => verbs.map((v) => `${group}/${r}:${v}`));

describe('karpless forwarder manifest', () => {
  it('prints the namespace, service account, read-only RBAC, the forwarder ConfigMap, deployment and PDB', async () => {
    const { code, out } = await run(['forwarder', 'manifest', '--cluster', 'prod', '--queue-url', QUEUE]);
    expect(code).toBe(0);
    const docs = parse(out);
    expect(docs.map((d) => d.kind)).toEqual([
      'Namespace',
      'ServiceAccount',
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'Deployment',
      'PodDisruptionBudget',
    ]);
    expect(out).toMatch(/kubectl apply --server-side -f/);
    expect(out).toMatch(/Pod Identity.*\n.*system:serviceaccount:karpless:karpless-forwarder/);
    expect(docs[1]?.metadata.annotations).toBeUndefined();
    const role = docs.find((d) => d.kind === 'ClusterRole');
    // list + watch is all the forwarder's reflectors do; it never reads a single object. NodeClaims for their
    // deletion marks and NodeOverlays for a re-plan, nothing more: no get, and no write of any kind.
    const watch = ['list', 'watch'];
    expect(grants(role?.rules)).toEqual(
      [
        ...grant('', ['pods', 'nodes'], watch),
        ...grant('karpenter.sh', ['nodepools', 'nodeoverlays', 'nodeclaims'], watch),
        ...grant('karpenter.k8s.aws', ['ec2nodeclasses'], watch),
      ].sort(),
    );
    expect(docs[3]?.subjects).toEqual([{ kind: 'ServiceAccount', name: 'karpless-forwarder', namespace: 'karpless' }]);

    const deployment = docs.find((d) => d.kind === 'Deployment') as unknown as DeploymentDoc;
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0]!;
    expect(deployment.spec.replicas).toBe(1);
    expect(pod.priorityClassName).toBe('system-cluster-critical');
    expect(pod.tolerations).toEqual([{ operator: 'Exists' }]);
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      runAsNonRoot: true,
    });
    expect(container.resources.requests).toEqual({ cpu: '10m', memory: '80Mi' });
    // The bundled forwarder in a ConfigMap, run by node from the official image pinned to an exact release.
    expect(container.image).toBe('public.ecr.aws/docker/library/node:22.12.0-alpine');
    expect(container.command).toEqual(['node']);
    expect(container.args).toEqual([
      '--no-opt',
      '--no-maglev',
      '--max-semi-space-size=1',
      '--max-old-space-size=48',
      '/opt/karpless/forwarder.mjs',
    ]);
    expect(container.volumeMounts).toEqual([{ name: 'forwarder', mountPath: '/opt/karpless', readOnly: true }]);
    expect(pod.volumes).toEqual([{ name: 'forwarder', configMap: { name: 'karpless-forwarder' } }]);
    const configMap = docs.find((d) => d.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
    const script = configMap.data['forwarder.mjs'] ?? '';
    expect(script).toContain('KARPLESS_QUEUE_URL');
    // Under the 1 MiB a ConfigMap may hold.
    expect(Buffer.byteLength(script)).toBeLessThan(1024 * 1024);
    expect(deployment.spec.template.metadata.annotations?.['karpless.dev/forwarder-sha256']).toMatch(/^[0-9a-f]{64}$/);
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.env).toEqual([
      { name: 'KARPLESS_CLUSTER', value: 'prod' },
      { name: 'KARPLESS_QUEUE_URL', value: QUEUE },
      { name: 'AWS_REGION', value: 'eu-west-1' },
      { name: 'KARPLESS_HEALTH_PORT', value: '8080' },
    ]);
    const pdb = docs.find((d) => d.kind === 'PodDisruptionBudget');
    expect(pdb?.spec).toMatchObject({ maxUnavailable: 1 });
  });

  it('annotates the service account for IRSA and runs a private image with its own entrypoint, no ConfigMap', async () => {
    const roleArn = 'arn:aws:iam::123456789012:role/karpless-forwarder';
    const { out } = await run([
      'forwarder',
      'manifest',
      '--cluster',
      'prod',
      '--queue-url',
      QUEUE,
      '--role-arn',
      roleArn,
      '--image',
      'x/y:1',
    ]);
    const docs = parse(out);
    expect(docs[1]?.metadata.annotations).toEqual({ 'eks.amazonaws.com/role-arn': roleArn });
    expect(docs.map((d) => d.kind)).not.toContain('ConfigMap');
    const container = (docs[4] as unknown as DeploymentDoc).spec.template.spec.containers[0];
    expect(container?.image).toBe('x/y:1');
    expect(container?.command).toBeUndefined();
    expect(container?.args).toBeUndefined();
    expect(container?.volumeMounts).toBeUndefined();
  });

  it('uses the namespace and service account the stack config names', async () => {
    const { out } = await run([
      'forwarder',
      'manifest',
      '--cluster',
      'prod',
      '--queue-url',
      QUEUE,
      '--namespace',
      'ops',
      '--service-account',
      'fwd',
    ]);
    const docs = parse(out);
    expect(docs[0]?.metadata.name).toBe('ops');
    expect(docs[1]?.metadata).toMatchObject({ name: 'fwd', namespace: 'ops' });
    expect(docs[3]?.subjects).toEqual([{ kind: 'ServiceAccount', name: 'fwd', namespace: 'ops' }]);
    const deployment = docs.find((d) => d.kind === 'Deployment');
    expect(
      (deployment as unknown as { spec: { template: { spec: { serviceAccountName: string } } } }).spec.template.spec
        .serviceAccountName,
    ).toBe('fwd');
    for (const d of docs.filter((d) =>
      ['ServiceAccount', 'ConfigMap', 'Deployment', 'PodDisruptionBudget'].includes(d.kind),
    ))
      expect(d.metadata.namespace).toBe('ops');
  });

  it('rejects bad input with exit code 2 naming the flag', async () => {
    const { code, err } = await run([
      'forwarder',
      'manifest',
      '--cluster',
      'prod',
      '--queue-url',
      'https://sqs.eu-west-1.amazonaws.com/1/q',
      '--role-arn',
      'nope',
    ]);
    expect(code).toBe(2);
    expect(err).toMatch(/--queue-url: .* is not an SQS FIFO queue URL/);
    expect(err).toMatch(/--role-arn: "nope" is not an IAM role ARN/);
    expect((await run(['forwarder', 'manifest', '--queue-url', QUEUE])).code).toBe(2);
  });
});

/** What the functions are granted with binding left to kube-scheduler (the default). */
const FUNCTION_GRANTS = [
  '/pods/eviction:create',
  '/nodes:get',
  '/nodes:patch',
  '/nodes:delete',
  '/events:create',
  'karpenter.sh/nodepools/status:patch',
  'karpenter.k8s.aws/ec2nodeclasses/status:patch',
  // The engine's reads are paginated lists; nothing is watched.
  ...grant('', ['pods', 'nodes', 'namespaces', 'persistentvolumeclaims', 'persistentvolumes'], ['list']),
  ...grant('apps', ['daemonsets'], ['list']),
  ...grant('policy', ['poddisruptionbudgets'], ['list']),
  ...grant('storage.k8s.io', ['storageclasses', 'csinodes'], ['list']),
  ...grant('karpenter.sh', ['nodepools', 'nodeoverlays'], ['list']),
  ...grant('karpenter.k8s.aws', ['ec2nodeclasses'], ['list']),
  // The NodeClaim mirror (docs/kubernetes.md): its objects and their status only.
  ...grant('karpenter.sh', ['nodeclaims'], ['list', 'create', 'patch', 'delete']),
  'karpenter.sh/nodeclaims/status:patch',
];

describe('karpless forwarder rbac', () => {
  it('grants the Lambda functions exactly evict, node get/patch/delete, events, status patches, the NodeClaim mirror and the engine lists', async () => {
    const { code, out } = await run(['forwarder', 'rbac']);
    expect(code).toBe(0);
    const docs = parse(out);
    expect(docs.map((d) => d.kind)).toEqual([
      'ClusterRole',
      'ClusterRoleBinding',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
    ]);
    // No pods/binding by default: kube-scheduler binds the pods Karpless nominates.
    expect(grants(docs[0]?.rules)).toEqual([...FUNCTION_GRANTS].sort());
    expect(docs[1]?.subjects).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: CONTROLLER_GROUP },
    ]);
    expect(out).toMatch(new RegExp(`create-access-entry .* --kubernetes-groups ${CONTROLLER_GROUP}`));
  });

  it('grants create on pods/binding with --bind-pods, for clusters that opt in to binding', async () => {
    const { code, out } = await run(['forwarder', 'rbac', '--bind-pods']);
    expect(code).toBe(0);
    expect(grants(parse(out)[0]?.rules)).toEqual([...FUNCTION_GRANTS, '/pods/binding:create'].sort());
    expect(out).toMatch(/bindPods: true/);
  });

  it('binds a custom group, and matches the admission policy on it', async () => {
    const docs = parse((await run(['forwarder', 'rbac', '--group', 'ops:karpless'])).out);
    expect(docs[1]?.subjects?.[0]?.name).toBe('ops:karpless');
    const policy = docs[2]?.spec as { matchConditions: { expression: string }[] };
    expect(policy.matchConditions).toEqual([
      { name: 'karpless-functions', expression: '"ops:karpless" in request.userInfo.groups' },
    ]);
    expect(docs[3]?.spec).toEqual({ policyName: 'karpless-managed-nodes-only', validationActions: ['Deny'] });
    const claims = docs[4]?.spec as { matchConditions: { expression: string }[] };
    expect(claims.matchConditions).toEqual(policy.matchConditions);
    expect(docs[5]?.spec).toEqual({ policyName: 'karpless-managed-nodeclaims-only', validationActions: ['Deny'] });
  });

  it('leaves the admission policy out with --no-admission-policy', async () => {
    const docs = parse((await run(['forwarder', 'rbac', '--no-admission-policy'])).out);
    expect(docs.map((d) => d.kind)).toEqual(['ClusterRole', 'ClusterRoleBinding']);
  });
});
