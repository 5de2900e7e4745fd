import { describe, expect, it } from 'vitest';
import { expandPods, uidFor } from './expand';
import { parseManifests } from './parse';

const WORKLOADS = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      priorityClassName: high
      containers: [{name: app, resources: {requests: {cpu: 500m}}}]
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs}
spec:
  template:
    spec:
      containers: [{name: app}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db}]
      volumes:
        - name: data
          emptyDir: {}
  volumeClaimTemplates:
    - metadata: {name: data, labels: {tier: storage}}
      spec:
        storageClassName: gp3
        accessModes: [ReadWriteOnce]
        resources: {requests: {storage: 50Gi}}
    - metadata: {name: logs}
      spec:
        resources: {requests: {storage: 5Gi}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: train}
spec:
  parallelism: 4
  completions: 2
  template:
    spec:
      containers: [{name: t}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: once}
spec:
  template:
    spec:
      priorityClassName: missing
      containers: [{name: t}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  template:
    spec:
      containers: [{name: a}]
---
apiVersion: v1
kind: Pod
metadata: {name: solo}
spec:
  containers: [{name: s}]
---
apiVersion: v1
kind: Pod
metadata: {name: running}
spec:
  nodeName: node-1
  priority: 7
  containers: [{name: s}]
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: normal}
value: 10
globalDefault: true
`;

describe('expandPods', () => {
  const set = parseManifests(WORKLOADS, 'workloads.yaml');
  const { pods, pvcs, warnings } = expandPods(set);
  const byName = new Map(pods.map((p) => [p.metadata.name, p]));

  it('names controller pods <controller>-<index> and skips DaemonSets', () => {
    expect(pods.map((p) => `${p.metadata.namespace}/${p.metadata.name}`)).toEqual([
      'default/solo',
      'default/running',
      'shop/web-0',
      'shop/web-1',
      'shop/web-2',
      'default/rs-0',
      'default/db-0',
      'default/db-1',
      'default/train-0',
      'default/train-1',
      'default/once-0',
    ]);
  });

  it('points ownerReferences at the controller with deterministic uids', () => {
    const web1 = byName.get('web-1');
    expect(web1?.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'web',
        uid: uidFor('Deployment', 'shop', 'web'),
        controller: true,
      },
    ]);
    expect(web1?.metadata.uid).toBe(uidFor('Pod', 'shop', 'web-1'));
    expect(uidFor('Pod', 'shop', 'web-1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(uidFor('Pod', 'shop', 'web-1')).not.toBe(uidFor('Pod', 'shop', 'web-2'));
    expect(byName.get('solo')?.metadata.uid).toBe(uidFor('Pod', 'default', 'solo'));
  });

  it('copies template labels and marks pods pending and unschedulable', () => {
    const web0 = byName.get('web-0');
    expect(web0?.metadata.labels).toEqual({ app: 'web' });
    expect(web0?.status).toEqual({
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
    });
    expect(web0?.spec.containers[0]?.resources?.requests).toEqual({ cpu: '500m' });
    expect(byName.get('running')?.status).toBeUndefined();
    expect(byName.get('solo')?.status?.phase).toBe('Pending');
  });

  it('creates a claim per StatefulSet ordinal and template, and points volumes at them', () => {
    expect(pvcs.map((c) => c.metadata.name)).toEqual(['data-db-0', 'logs-db-0', 'data-db-1', 'logs-db-1']);
    expect(pvcs[0]).toMatchObject({
      metadata: { name: 'data-db-0', namespace: 'default', labels: { tier: 'storage' } },
      spec: { storageClassName: 'gp3', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '50Gi' } } },
      status: { phase: 'Pending' },
    });
    expect(byName.get('db-1')?.spec.volumes).toEqual([
      { name: 'data', persistentVolumeClaim: { claimName: 'data-db-1' } },
      { name: 'logs', persistentVolumeClaim: { claimName: 'logs-db-1' } },
    ]);
    expect(byName.get('db-1')?.metadata.labels).toEqual({
      app: 'db',
      'statefulset.kubernetes.io/pod-name': 'db-1',
      'apps.kubernetes.io/pod-index': '1',
    });
  });

  it('runs min(parallelism, completions) Job pods and labels them with the job name', () => {
    expect(byName.get('train-1')?.metadata.labels).toEqual({
      'batch.kubernetes.io/job-name': 'train',
      'job-name': 'train',
    });
    expect(byName.has('train-2')).toBe(false);
  });

  it('resolves priority from the class, the global default, or keeps an explicit one', () => {
    expect(byName.get('web-0')?.spec.priority).toBe(1000);
    expect(byName.get('rs-0')?.spec).toMatchObject({ priority: 10, priorityClassName: 'normal' });
    expect(byName.get('running')?.spec.priority).toBe(7);
    expect(byName.get('once-0')?.spec.priority).toBe(0);
    expect(warnings).toEqual(['PriorityClass "missing" is not among the manifests; its pods get priority 0']);
  });

  it('does not share objects between pods of one controller', () => {
    const a = byName.get('web-0');
    const b = byName.get('web-1');
    expect(a?.spec).not.toBe(b?.spec);
    expect(a?.metadata.labels).not.toBe(b?.metadata.labels);
  });

  it('gives pods priority 0 when no class applies', () => {
    const plain = expandPods(
      parseManifests('apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n', 'p.yaml'),
    );
    expect(plain.pods[0]?.spec.priority).toBe(0);
    expect(plain.pods[0]?.spec.priorityClassName).toBeUndefined();
  });
});
