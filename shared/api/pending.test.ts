import { describe, expect, it } from 'vitest';
import { pod } from '../../testkit/builders';
import type { Pod } from './kube';
import { isProvisionable } from './pending';

const unschedulable = { type: 'PodScheduled', status: 'False', reason: 'Unschedulable' } as const;
const base = (over: Partial<Pod> = {}): Pod => {
  const p = pod({
    name: 'p',
    containers: [],
    status: { phase: 'Pending', conditions: [unschedulable], ...over.status },
  });
  return { ...p, metadata: { ...p.metadata, ...over.metadata }, spec: { ...p.spec, ...over.spec } };
};

describe('isProvisionable', () => {
  it('accepts an unbound pending pod that kube-scheduler marked Unschedulable', () => {
    expect(isProvisionable(base())).toBe(true);
  });

  it.each([
    ['bound', base({ spec: { containers: [], nodeName: 'n' } })],
    ['not yet tried by the scheduler', base({ status: { phase: 'Pending', conditions: [] } })],
    ['gated', base({ status: { phase: 'Pending', conditions: [{ ...unschedulable, reason: 'SchedulingGated' }] } })],
    ['preempting', base({ status: { phase: 'Pending', conditions: [unschedulable], nominatedNodeName: 'n' } })],
    ['terminating', base({ metadata: { name: 'p', namespace: 'd', deletionTimestamp: '2026-01-01T00:00:00Z' } })],
    [
      'DaemonSet-owned',
      base({
        metadata: {
          name: 'p',
          namespace: 'd',
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'x' }],
        },
      }),
    ],
    [
      'a static mirror pod',
      base({
        metadata: { name: 'p', namespace: 'd', ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n' }] },
      }),
    ],
    ['failed', base({ status: { phase: 'Failed', conditions: [unschedulable] } })],
  ])('rejects a pod that is %s', (_why, pod) => {
    expect(isProvisionable(pod)).toBe(false);
  });
});
