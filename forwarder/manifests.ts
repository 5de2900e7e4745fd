// Everything needed to run the forwarder in a cluster, and the ClusterRole for the Lambda functions' access entry,
// as Kubernetes objects. `karpless forwarder manifest|rbac` prints them as YAML. By default the forwarder is one
// bundled JavaScript file in a ConfigMap, run by the official Node.js image (docs/architecture.md, "Changes
// from the starting design"), so nothing needs building or publishing; `--image` runs a private image instead.
import { createHash } from 'node:crypto';
import { Document } from 'yaml';
import { CONTROLLER_GROUP } from '../shared/api/controller-group';
import { admissionPolicy } from './admission-policy';
import { FORWARDER_NAME, FORWARDER_NAMESPACE } from './names';
import { type ControllerRbacOptions, controllerRules, FORWARDER_RULES } from './rbac';

/** Defaults match the stack's forwarder identity (stacks/config.ts), which trusts this namespace/service account. */
export { CONTROLLER_GROUP, FORWARDER_NAME, FORWARDER_NAMESPACE };
export const CONTROLLER_ROLE_NAME = 'karpless-controller';
/** The official Node.js image (Docker Hub's library/node, mirrored on ECR Public so EKS nodes pull it without Docker
 * Hub's rate limits), pinned to an exact release; multi-arch (amd64, arm64). The Lambda functions run Node 22 too. */
export const NODE_IMAGE = 'public.ecr.aws/docker/library/node:22.12.0-alpine';
/** Where the ConfigMap holding the bundled forwarder is mounted. */
export const SCRIPT_DIR = '/opt/karpless';
export const SCRIPT_FILE = 'forwarder.mjs';
/** A small young generation, a capped old generation and no optimizing compilers keep RSS near 70 MiB with 10k
 * pending pods on Node 22 (docs/kubernetes.md, Memory). Never `--lite-mode`, `--jitless` or `--no-expose-wasm`: on
 * Node 22, importing `node:http` loads undici, which compiles WebAssembly, and without it the process dies. The same
 * flags as forwarder/Dockerfile's CMD. */
export const NODE_FLAGS = ['--no-opt', '--no-maglev', '--max-semi-space-size=1', '--max-old-space-size=48'];
/** Changes with the bundle, so applying a new forwarder rolls the pods. */
export const SCRIPT_HASH_ANNOTATION = 'karpless.dev/forwarder-sha256';
const HEALTH_PORT = 8080;

export interface ForwarderManifestOptions {
  cluster: string;
  queueUrl: string;
  roleArn?: string;
  /** A private forwarder image (forwarder/Dockerfile) run with its own entrypoint; no ConfigMap then. */
  image?: string;
  /** The bundled forwarder (forwarder/bundle.ts), shipped in a ConfigMap and run on NODE_IMAGE; required without
   * `image`. */
  script?: string;
  namespace?: string;
  serviceAccount?: string;
}

type Manifest = Record<string, unknown> & { kind: string };

/** The queue's region, from its URL (https://sqs.<region>.amazonaws.com/<account>/<name>.fifo). */
export function queueRegion(queueUrl: string): string | undefined {
  return queueUrl.match(/^https:\/\/sqs\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?\//)?.[1];
}

export function forwarderManifests(options: ForwarderManifestOptions): Manifest[] {
  const namespace = options.namespace ?? FORWARDER_NAMESPACE;
  const serviceAccount = options.serviceAccount ?? FORWARDER_NAME;
  const labels = { 'app.kubernetes.io/name': FORWARDER_NAME, 'app.kubernetes.io/part-of': 'karpless' };
  const meta = (name: string, namespaced = true) => ({
    name,
    ...(namespaced ? { namespace } : {}),
    labels,
  });
  const region = queueRegion(options.queueUrl);
  if (!options.image && !options.script) throw new Error('forwarderManifests: give the bundled script or an image');
  // Without an image of its own, node runs the script mounted from the ConfigMap.
  const fromScript = !options.image && options.script !== undefined;
  const scriptHash = options.script ? createHash('sha256').update(options.script).digest('hex') : '';
  const configMap: Manifest[] = fromScript
    ? [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(FORWARDER_NAME), data: { [SCRIPT_FILE]: options.script } }]
    : [];
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels } },
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: {
        ...meta(serviceAccount),
        ...(options.roleArn ? { annotations: { 'eks.amazonaws.com/role-arn': options.roleArn } } : {}),
      },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: meta(FORWARDER_NAME, false),
      rules: FORWARDER_RULES,
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: meta(FORWARDER_NAME, false),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: FORWARDER_NAME },
      subjects: [{ kind: 'ServiceAccount', name: serviceAccount, namespace }],
    },
    ...configMap,
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta(FORWARDER_NAME),
      spec: {
        replicas: 1,
        selector: { matchLabels: { 'app.kubernetes.io/name': FORWARDER_NAME } },
        // A second forwarder for a few seconds only duplicates hints; a gap would delay them.
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
        template: {
          metadata: { labels, ...(fromScript ? { annotations: { [SCRIPT_HASH_ANNOTATION]: scriptHash } } : {}) },
          spec: {
            serviceAccountName: serviceAccount,
            priorityClassName: 'system-cluster-critical',
            // Runs anywhere, Fargate included (with a Fargate profile for the namespace).
            tolerations: [{ operator: 'Exists' }],
            affinity: {
              nodeAffinity: {
                // Prefer nodes Karpless does not manage, so consolidation rarely moves the forwarder.
                preferredDuringSchedulingIgnoredDuringExecution: [
                  {
                    weight: 100,
                    preference: { matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' }] },
                  },
                ],
              },
            },
            securityContext: {
              runAsNonRoot: true,
              runAsUser: 65532,
              runAsGroup: 65532,
              seccompProfile: { type: 'RuntimeDefault' },
            },
            terminationGracePeriodSeconds: 15,
            containers: [
              {
                name: 'forwarder',
                image: options.image ?? NODE_IMAGE,
                imagePullPolicy: 'IfNotPresent',
                ...(fromScript
                  ? {
                      command: ['node'],
                      args: [...NODE_FLAGS, `${SCRIPT_DIR}/${SCRIPT_FILE}`],
                      volumeMounts: [{ name: 'forwarder', mountPath: SCRIPT_DIR, readOnly: true }],
                    }
                  : {}),
                env: [
                  { name: 'KARPLESS_CLUSTER', value: options.cluster },
                  { name: 'KARPLESS_QUEUE_URL', value: options.queueUrl },
                  ...(region ? [{ name: 'AWS_REGION', value: region }] : []),
                  { name: 'KARPLESS_HEALTH_PORT', value: String(HEALTH_PORT) },
                ],
                ports: [{ name: 'health', containerPort: HEALTH_PORT, protocol: 'TCP' }],
                resources: { requests: { cpu: '10m', memory: '80Mi' }, limits: { memory: '128Mi' } },
                securityContext: {
                  allowPrivilegeEscalation: false,
                  readOnlyRootFilesystem: true,
                  runAsNonRoot: true,
                  capabilities: { drop: ['ALL'] },
                },
                livenessProbe: {
                  httpGet: { path: '/healthz', port: 'health' },
                  initialDelaySeconds: 5,
                  periodSeconds: 20,
                  failureThreshold: 3,
                },
                readinessProbe: {
                  httpGet: { path: '/readyz', port: 'health' },
                  initialDelaySeconds: 2,
                  periodSeconds: 10,
                  failureThreshold: 3,
                },
              },
            ],
            ...(fromScript ? { volumes: [{ name: 'forwarder', configMap: { name: FORWARDER_NAME } }] } : {}),
          },
        },
      },
    },
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: meta(FORWARDER_NAME),
      // Never blocks a drain (the forwarder re-lists and resends on start), but keeps voluntary disruptions to one.
      spec: { maxUnavailable: 1, selector: { matchLabels: { 'app.kubernetes.io/name': FORWARDER_NAME } } },
    },
  ];
}

export interface ControllerManifestOptions extends ControllerRbacOptions {
  /** The group the functions' EKS access entries map to. */
  group?: string;
  /** Ship the ValidatingAdmissionPolicies that keep node and NodeClaim writes to Karpless's own (default on;
   * Kubernetes 1.30+). */
  admissionPolicy?: boolean;
}

export function controllerRbac(options: ControllerManifestOptions = {}): Manifest[] {
  const group = options.group ?? CONTROLLER_GROUP;
  const labels = { 'app.kubernetes.io/name': CONTROLLER_ROLE_NAME, 'app.kubernetes.io/part-of': 'karpless' };
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: CONTROLLER_ROLE_NAME, labels },
      rules: controllerRules(options),
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: CONTROLLER_ROLE_NAME, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: CONTROLLER_ROLE_NAME },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }],
    },
    ...(options.admissionPolicy === false ? [] : admissionPolicy(group, labels)),
  ];
}

/** Multi-document YAML with a comment on top of the documents that need one. */
export function toYaml(manifests: Manifest[], comments: Partial<Record<string, string>> = {}): string {
  return manifests
    .map((m) => {
      const doc = new Document(m, { aliasDuplicateObjects: false });
      const comment = comments[m.kind];
      if (comment)
        doc.commentBefore = comment
          .split('\n')
          .map((l) => ` ${l}`)
          .join('\n');
      return doc.toString({ lineWidth: 0 });
    })
    .join('---\n');
}

export function forwarderYaml(options: ForwarderManifestOptions): string {
  const subject = `${options.namespace ?? FORWARDER_NAMESPACE}:${options.serviceAccount ?? FORWARDER_NAME}`;
  const identity = options.roleArn
    ? `IRSA: the role ${options.roleArn} must trust this cluster's OIDC provider for\nsystem:serviceaccount:${subject} and allow sqs:SendMessage on the queue.`
    : `EKS Pod Identity: the stack (forwarder.identity "pod-identity") associates its forwarder role with\nsystem:serviceaccount:${subject}; the eks-pod-identity-agent add-on must be installed.\nPod Identity does not work on Fargate: use IRSA there (--role-arn).`;
  const apply = options.image
    ? 'kubectl apply -f <this file>'
    : // The ConfigMap is larger than the 256 KiB annotation client-side apply would copy it into.
      'kubectl apply --server-side -f <this file>';
  return toYaml(forwarderManifests(options), {
    Namespace: `Karpless forwarder for cluster ${options.cluster}: ${apply}`,
    ConfigMap: `The forwarder, bundled into one file (forwarder/bundle.ts); the Deployment runs it with node from\n${NODE_IMAGE}. Regenerate this file to upgrade.`,
    ServiceAccount: identity,
    ClusterRole: 'Read-only: list and watch on exactly what the forwarder watches.',
  });
}

export function controllerRbacYaml(options: ControllerManifestOptions = {}): string {
  const group = options.group ?? CONTROLLER_GROUP;
  const binding = options.bindPods
    ? 'With create on pods/binding: the clusters file sets bindPods: true, so Karpless binds nominated pods itself.'
    : 'No pods/binding: kube-scheduler binds the pods Karpless nominates (--bind-pods adds it for bindPods: true).';
  return toYaml(controllerRbac(options), {
    ClusterRole: `What the Karpless Lambda functions may do. Map their role to the group "${group}" with an EKS access entry:\n  aws eks create-access-entry --cluster-name <CLUSTER> --principal-arn <LAMBDA_ROLE_ARN> --kubernetes-groups ${group}\n${binding}`,
    ValidatingAdmissionPolicy: `Lets the group "${group}" update or delete only nodes labelled karpenter.sh/nodepool, and never\nremove that label; and write only NodeClaims labelled app.kubernetes.io/managed-by=karpless, never\nKarpenter's own (Kubernetes 1.30+; --no-admission-policy leaves both out). Evictions cannot be\nnarrowed by node this way: see docs/kubernetes.md, "Admission policy".`,
  });
}
