// KubeClusterApi and the status of NodePools and EC2NodeClasses: what a list keeps, and replacing status on the
// status subresource with the errors it can meet.
import { beforeEach, describe, expect, it } from 'vitest';
import { kubeStatus } from '../../test/fake-kube-api/server';
import { useKubeClusterBed } from '../../testkit/kube-cluster-bed';
import type { EC2NodeClassStatus, NodePoolStatus } from '../api/status';
import { ClusterApiError } from '../errors';
import type { KubeClusterApi } from './cluster-api';

const bed = useKubeClusterBed();
const { api } = bed;
let cluster: KubeClusterApi;
beforeEach(() => {
  cluster = bed.cluster;
});

describe('status', () => {
  const condition = (type: string, generation: number) => ({
    type,
    status: 'True' as const,
    reason: type,
    message: '',
    lastTransitionTime: '2026-01-01T00:00:00.000Z',
    observedGeneration: generation,
  });
  const poolStatus: NodePoolStatus = {
    resources: { cpu: '4', memory: '16Gi', nodes: '2' },
    conditions: [condition('Ready', 3)],
  };
  const classStatus: EC2NodeClassStatus = {
    subnets: [{ id: 'subnet-1', zone: 'us-east-1a', zoneID: 'use1-az1' }],
    securityGroups: [{ id: 'sg-1', name: 'nodes' }],
    amis: [
      {
        id: 'ami-1',
        name: 'al2023',
        requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
      },
    ],
    instanceProfile: 'profile',
    conditions: [condition('Ready', 1)],
  };

  it('keeps generation and status when listing NodePools and EC2NodeClasses, and no other bookkeeping', async () => {
    api.put('nodepools', {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: {
        name: 'default',
        uid: 'np',
        generation: 3,
        creationTimestamp: '2026-01-01T00:00:00Z',
        managedFields: [{ manager: 'kubectl' }],
        finalizers: ['karpenter.sh/termination'],
      },
      spec: { weight: 10 },
      status: poolStatus,
    });
    api.put('ec2nodeclasses', {
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name: 'default', uid: 'nc', generation: 1 },
      spec: { role: 'R' },
      status: classStatus,
    });
    api.put('ec2nodeclasses', {
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name: 'new', uid: 'nc2' },
      spec: { role: 'R' },
    });
    expect(await cluster.listNodePools()).toEqual([
      {
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodePool',
        metadata: { name: 'default', uid: 'np', generation: 3 },
        spec: { weight: 10 },
        status: poolStatus,
      },
    ]);
    const [nc, fresh] = await cluster.listNodeClasses();
    expect(nc?.metadata).toEqual({ name: 'default', uid: 'nc', generation: 1 });
    expect(nc?.status).toEqual(classStatus);
    expect(Object.keys(fresh!)).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    expect(Object.keys(fresh!.metadata)).not.toContain('generation');
  });

  it('replaces a NodePool status with a JSON patch add on the status subresource', async () => {
    api.put('nodepools', {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: 'default', uid: 'np', generation: 3 },
      spec: { weight: 10 },
      // Written earlier (by Karpenter, say): keys the new status lacks must not survive.
      status: { resources: { cpu: '8', 'nvidia.com/gpu': '1', nodes: '3' }, conditions: [], stale: true },
    });
    expect(await cluster.replaceStatus({ kind: 'NodePool', name: 'default', status: poolStatus })).toBe('replaced');
    const reqs = api.requestsTo('PATCH', '/apis/karpenter.sh/v1/nodepools/default/status');
    expect(reqs).toHaveLength(1);
    expect(api.requests).toHaveLength(1);
    const [req] = reqs;
    expect(req?.path).toBe('/apis/karpenter.sh/v1/nodepools/default/status');
    expect(req?.contentType).toBe('application/json-patch+json');
    expect(req?.query.get('fieldManager')).toBe('karpless');
    expect(req?.body).toEqual([{ op: 'add', path: '/status', value: poolStatus }]);
    expect(api.get<{ status: unknown }>('nodepools', undefined, 'default')?.status).toEqual(poolStatus);
    const [np] = await cluster.listNodePools();
    expect(np?.status).toEqual(poolStatus);
  });

  it('replaces an EC2NodeClass status, creating it on an object that has none', async () => {
    api.put('ec2nodeclasses', {
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name: 'default', uid: 'nc', generation: 1 },
      spec: { role: 'R' },
    });
    const update = { kind: 'EC2NodeClass', name: 'default', status: classStatus } as const;
    expect(await cluster.replaceStatus(update)).toBe('replaced');
    const [req] = api.requestsTo('PATCH', '/apis/karpenter.k8s.aws/v1/ec2nodeclasses/default/status');
    expect(req?.method).toBe('PATCH');
    expect(req?.path).toBe('/apis/karpenter.k8s.aws/v1/ec2nodeclasses/default/status');
    expect(req?.contentType).toBe('application/json-patch+json');
    expect(req?.body).toEqual([{ op: 'add', path: '/status', value: classStatus }]);
    const [nc] = await cluster.listNodeClasses();
    expect(nc?.status).toEqual(classStatus);
  });

  it('answers gone when the object no longer exists (404)', async () => {
    expect(await cluster.replaceStatus({ kind: 'NodePool', name: 'deleted', status: poolStatus })).toBe('gone');
    expect(await cluster.replaceStatus({ kind: 'EC2NodeClass', name: 'deleted', status: classStatus })).toBe('gone');
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'PATCH /apis/karpenter.sh/v1/nodepools/deleted/status',
      'PATCH /apis/karpenter.k8s.aws/v1/ec2nodeclasses/deleted/status',
    ]);
  });

  it('classifies a 403 like other calls, naming the status subresource', async () => {
    api.override(() => ({
      status: 403,
      body: kubeStatus(
        403,
        'Forbidden',
        'nodepools.karpenter.sh "default" is forbidden: User "karpless" cannot patch resource "nodepools/status" in API group "karpenter.sh" at the cluster scope',
        { name: 'default', group: 'karpenter.sh', kind: 'nodepools' },
      ),
    }));
    const err = (await cluster
      .replaceStatus({ kind: 'NodePool', name: 'default', status: poolStatus })
      .catch((e: unknown) => e)) as ClusterApiError;
    expect(err).toBeInstanceOf(ClusterApiError);
    expect([err.status, err.retryable]).toEqual([403, false]);
    expect(err.message).toMatch(/lacks RBAC verb "patch" on resource "nodepools\/status.karpenter.sh"/);

    api.clearOverrides();
    api.override(() => ({ status: 403, body: {} }));
    const bare = (await cluster
      .replaceStatus({ kind: 'EC2NodeClass', name: 'default', status: classStatus })
      .catch((e: unknown) => e)) as ClusterApiError;
    expect(bare.message).toMatch(/verb "patch" on resource "ec2nodeclasses\/status.karpenter.k8s.aws"/);
  });

  it('names the verb, status subresource and object on other failures, retryable as other calls', async () => {
    api.override(() => ({ status: 422, body: kubeStatus(422, 'Invalid', 'status.conditions[0].reason: Invalid') }));
    const invalid = (await cluster
      .replaceStatus({ kind: 'NodePool', name: 'default', status: poolStatus })
      .catch((e: unknown) => e)) as ClusterApiError;
    expect([invalid.status, invalid.retryable]).toEqual([422, false]);
    expect(invalid.message).toMatch(/^patch nodepools\/status\.karpenter\.sh "default": HTTP 422 Invalid/);
    api.clearOverrides();
    api.override(() => ({ status: 503, body: kubeStatus(503, 'ServiceUnavailable', 'down') }));
    const down = (await cluster
      .replaceStatus({ kind: 'EC2NodeClass', name: 'default', status: classStatus })
      .catch((e: unknown) => e)) as ClusterApiError;
    expect([down.status, down.retryable]).toEqual([503, true]);
    expect(down.message).toMatch(/^patch ec2nodeclasses\/status\.karpenter\.k8s\.aws "default"/);
  });
});
