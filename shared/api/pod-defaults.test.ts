import { describe, expect, it } from 'vitest';
import { problemsOf } from '../../testkit/manifests';
import { parseManifests } from './parse';

describe('pod defaults', () => {
  it('requests a limited resource at its limit when it has no request, as the API server does', () => {
    const set = parseManifests(
      `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  initContainers:
    - name: init
      resources: {limits: {cpu: "2"}}
  containers:
    - name: app
      resources:
        requests: {cpu: 250m}
        limits: {cpu: "1", memory: 2Gi, nvidia.com/gpu: 1}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  template:
    spec:
      containers: [{name: a, resources: {limits: {memory: 128Mi}}}]
`,
      'p.yaml',
    );
    expect(set.pods[0]?.spec.containers[0]?.resources?.requests).toEqual({
      cpu: '250m',
      memory: '2Gi',
      'nvidia.com/gpu': 1,
    });
    expect(set.pods[0]?.spec.initContainers?.[0]?.resources?.requests).toEqual({ cpu: '2' });
    expect(set.daemonSets[0]?.spec.template.spec.containers[0]?.resources?.requests).toEqual({ memory: '128Mi' });
  });

  it('rejects a request above its limit', () => {
    expect(
      problemsOf(
        'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: app\n      resources: {requests: {memory: 2Gi}, limits: {memory: 1Gi}}\n',
        'p.yaml',
      ),
    ).toEqual([
      'p.yaml#1 Pod/p: spec.containers[0].resources.requests["memory"]: must be less than or equal to the memory limit (1Gi)',
    ]);
  });
});
