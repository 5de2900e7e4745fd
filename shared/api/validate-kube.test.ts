import { describe, expect, it } from 'vitest';
import { problemsOf } from '../../testkit/manifests';

const strip = (problems: string[]) => problems.map((p) => p.replace(/^k\.yaml#\d+ /, ''));
const check = (yaml: string) => strip(problemsOf(yaml, 'k.yaml'));

describe('Kubernetes object validation', () => {
  it('requires names and containers', () => {
    expect(check('apiVersion: v1\nkind: Pod\nmetadata: {}\nspec:\n  containers:\n    - image: nginx\n')).toEqual([
      'Pod/<unnamed>: metadata.name: required',
      'Pod/<unnamed>: spec.containers[0].name: required',
    ]);
  });

  it('checks container quantities, init containers, ports and overhead', () => {
    expect(
      check(`apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  overhead: {cpu: 1x}
  initContainers:
    - name: init
      restartPolicy: Never
      resources: {requests: {memory: 1Gb}}
  containers:
    - name: app
      resources:
        requests: {cpu: 250m, nvidia.com/gpu: 1}
        limits: {memory: "-1Gi"}
      ports:
        - containerPort: 70000
          hostPort: 80
          protocol: HTTP
`),
    ).toEqual([
      'Pod/p: spec.containers[0].resources.limits["memory"]: must not be negative, got "-1Gi"',
      'Pod/p: spec.containers[0].ports[0].containerPort: must be between 1 and 65535, got 70000',
      'Pod/p: spec.containers[0].ports[0].protocol: "HTTP" is not one of TCP, UDP, SCTP',
      'Pod/p: spec.initContainers[0].resources.requests["memory"]: "1Gb" is not a valid quantity (for example 500m, 2, 512Mi, 1Gi)',
      'Pod/p: spec.initContainers[0].restartPolicy: "Never" is not one of Always',
      'Pod/p: spec.overhead["cpu"]: "1x" is not a valid quantity (for example 500m, 2, 512Mi, 1Gi)',
    ]);
  });

  it('checks scheduling constraints of a pod', () => {
    expect(
      check(`apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: app}]
  nodeSelector: {disktype: 1}
  tolerations:
    - key: a
      operator: Exists
      value: b
    - key: c
      effect: Never
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - {key: topology.kubernetes.io/zone, operator: Within, values: [a]}
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        - labelSelector:
            matchExpressions:
              - {key: app, operator: Exists, values: [web]}
  topologySpreadConstraints:
    - maxSkew: 0
      topologyKey: topology.kubernetes.io/zone
      whenUnsatisfiable: ScheduleAnyway
      minDomains: 2
`),
    ).toEqual([
      'Pod/p: spec.nodeSelector["disktype"]: must be a string, got 1 (quote it in YAML)',
      'Pod/p: spec.tolerations[0].value: must be empty for operator Exists',
      'Pod/p: spec.tolerations[1].effect: "Never" is not one of NoSchedule, PreferNoSchedule, NoExecute',
      'Pod/p: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: "Within" is not one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte',
      'Pod/p: spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: required',
      'Pod/p: spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].values: must be empty for operator Exists',
      'Pod/p: spec.topologySpreadConstraints[0].maxSkew: must be at least 1, got 0',
      'Pod/p: spec.topologySpreadConstraints[0].minDomains: may only be set with whenUnsatisfiable DoNotSchedule',
    ]);
  });

  it('checks replicas and that the selector matches the template', () => {
    expect(
      check(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: -1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers: [{name: app}]
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs}
spec:
  replicas: 2
  selector:
    matchExpressions:
      - {key: app, operator: In}
  template:
    spec:
      containers: [{name: app}]
`),
    ).toEqual([
      'Deployment/web: spec.replicas: must be at least 0, got -1',
      'Deployment/web: spec.selector: does not match spec.template.metadata.labels',
      'ReplicaSet/rs: spec.selector.matchExpressions[0].values: must have at least one value for operator In',
    ]);
  });

  it('checks StatefulSet claim templates and Job counts', () => {
    expect(
      check(`apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  template:
    spec:
      containers: [{name: db}]
  volumeClaimTemplates:
    - metadata: {}
      spec:
        accessModes: [ReadWriteSometimes]
        resources: {requests: {storage: big}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  parallelism: -2
  template:
    spec:
      containers: [{name: c}]
`),
    ).toEqual([
      'StatefulSet/db: spec.volumeClaimTemplates[0].metadata.name: required',
      'StatefulSet/db: spec.volumeClaimTemplates[0].spec.accessModes[0]: "ReadWriteSometimes" is not one of ReadWriteOnce, ReadOnlyMany, ReadWriteMany, ReadWriteOncePod',
      'StatefulSet/db: spec.volumeClaimTemplates[0].spec.resources.requests["storage"]: "big" is not a valid quantity (for example 500m, 2, 512Mi, 1Gi)',
      'Job/j: spec.parallelism: must be at least 0, got -2',
    ]);
  });

  it('requires exactly one of minAvailable and maxUnavailable on a PDB', () => {
    expect(
      check(`apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: both}
spec: {minAvailable: 1, maxUnavailable: "10%"}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: neither}
spec: {selector: {matchLabels: {app: web}}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: bad}
spec: {maxUnavailable: "ten"}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: good}
spec: {maxUnavailable: "25%"}
`),
    ).toEqual([
      'PodDisruptionBudget/both: spec: must set exactly one of minAvailable, maxUnavailable',
      'PodDisruptionBudget/neither: spec: must set exactly one of minAvailable, maxUnavailable',
      'PodDisruptionBudget/bad: spec.maxUnavailable: "ten" must be a non-negative integer or a percentage such as "50%"',
    ]);
  });

  it('checks nodes, volumes, storage and priority classes', () => {
    expect(
      check(`apiVersion: v1
kind: Node
metadata: {name: n1}
spec:
  taints: [{key: a, effect: Sometimes}]
status:
  allocatable: {cpu: "x"}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv}
spec:
  capacity: {storage: 10Q}
  nodeAffinity:
    required: {}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: sc}
volumeBindingMode: Lazy
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: pc}
value: high
`),
    ).toEqual([
      'Node/n1: spec.taints[0].effect: "Sometimes" is not one of NoSchedule, PreferNoSchedule, NoExecute',
      'Node/n1: status.allocatable["cpu"]: "x" is not a valid quantity (for example 500m, 2, 512Mi, 1Gi)',
      'PersistentVolume/pv: spec.capacity["storage"]: "10Q" is not a valid quantity (for example 500m, 2, 512Mi, 1Gi)',
      'PersistentVolume/pv: spec.nodeAffinity.required.nodeSelectorTerms: required',
      'StorageClass/sc: provisioner: required',
      'StorageClass/sc: volumeBindingMode: "Lazy" is not one of Immediate, WaitForFirstConsumer',
      'PriorityClass/pc: value: must be an integer, got "high"',
    ]);
  });
});
