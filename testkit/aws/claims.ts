// Test fixtures shared by the shared/aws tests.
import type { NodeClaim } from '../../shared/api/nodeclaim';

export function makeClaim(overrides: Partial<NodeClaim> = {}): NodeClaim {
  const name = overrides.name ?? 'default-abc12';
  return {
    name,
    uid: `uid-${name}`,
    cluster: 'test-cluster',
    nodePool: 'default',
    nodeClass: 'default',
    state: 'Pending',
    version: 1,
    requirements: [],
    instanceTypeOptions: ['m5.large'],
    labels: { 'karpenter.sh/nodepool': 'default' },
    taints: [],
    startupTaints: [],
    requests: { cpu: 1000, memory: 1024 },
    nominatedPods: [{ namespace: 'default', name: 'web-1', uid: 'pod-1' }],
    createdAt: '2026-01-01T00:00:00.000Z',
    stateTimes: {},
    ...overrides,
  };
}
