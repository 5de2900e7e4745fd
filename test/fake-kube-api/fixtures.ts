// Pods shaped like kube-apiserver returns them (managedFields, owner references, status conditions; ~3 KB of JSON
// each), for benchmarks that care about bytes on the wire and memory.

/** The PodScheduled condition the scheduler sets on a pod no node can take, as kube-apiserver returns it. */
export function unschedulableCondition() {
  return {
    type: 'PodScheduled',
    status: 'False',
    reason: 'Unschedulable',
    message: '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available.',
    lastTransitionTime: '2026-01-01T00:00:00Z',
  };
}

export function realisticPod(i: number, options: { nodeName?: string } = {}) {
  const managed = {
    manager: 'kube-controller-manager',
    operation: 'Update',
    apiVersion: 'v1',
    time: '2026-01-01T00:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': {
        'f:containers': {
          'k:{"name":"app"}': {
            '.': {},
            'f:image': {},
            'f:resources': { 'f:requests': { 'f:cpu': {}, 'f:memory': {} } },
          },
        },
      },
    },
  };
  const namespace = `team-${i % 50}`;
  const name = `worker-${i}`;
  const bound = options.nodeName !== undefined;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      uid: `uid-${namespace}-${name}`,
      labels: { app: `worker-${i % 100}`, 'pod-template-hash': '7d9f' },
      annotations: {
        'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:00:00Z',
        'team.example.com/owner': 'platform',
      },
      creationTimestamp: '2026-01-01T00:00:00Z',
      managedFields: [managed, { ...managed, manager: 'kube-scheduler', subresource: 'status' }],
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `worker-${i % 100}-7d9f`,
          uid: `rs-${i % 100}`,
          controller: true,
        },
      ],
    },
    spec: {
      ...(bound ? { nodeName: options.nodeName } : {}),
      containers: [
        {
          name: 'app',
          image: 'public.ecr.aws/nginx/nginx:1.27',
          resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '512Mi' } },
          env: [{ name: 'MODE', value: 'production' }],
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          volumeMounts: [{ name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
        },
      ],
      volumes: [{ name: 'kube-api-access', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }],
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      schedulerName: 'default-scheduler',
      terminationGracePeriodSeconds: 30,
    },
    status: bound
      ? {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }],
          qosClass: 'Burstable',
        }
      : {
          phase: 'Pending',
          conditions: [unschedulableCondition()],
          qosClass: 'Burstable',
        },
  };
}
