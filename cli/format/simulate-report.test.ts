import { describe, expect, it } from 'vitest';
import type { Pod } from '../../shared/api/kube';
import type { SimulationResult } from '../../shared/sim/simulation';
import { pod as buildPod } from '../../testkit/builders';
import { fixtureType } from '../../testkit/sim-fixtures';
import { buildSimulateReport } from './simulate-report';
import { renderSimulateTable } from './simulate-table';

const pod = (ns: string, name: string): Pod => buildPod({ name, namespace: ns, containers: [] });
const type = fixtureType('m5.large', 2, [{ zone: 'us-east-1b', capacityType: 'spot', price: 0.035 }]);

function result(over: Partial<SimulationResult> = {}): SimulationResult {
  return {
    nodeClaims: [
      {
        plan: {
          name: 'general-1',
          nodePool: 'general',
          nodeClass: 'default',
          requirements: [],
          minValuesRelaxed: false,
          instanceTypeOptions: [type, fixtureType('m5.xlarge', 4, [])],
          labels: { team: 'web' },
          taints: [{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }],
          startupTaints: [],
          pods: [pod('shop', 'web-0'), pod('shop', 'web-1')],
          requests: { cpu: 1100, memory: 1.125 * 2 ** 30, pods: 2 },
          daemonSetOverhead: { cpu: 100, memory: 128 * 2 ** 20 },
          cheapest: { instanceType: 'm5.large', zone: 'us-east-1b', capacityType: 'spot', price: 0.035 },
        },
        instance: {
          instanceId: 'i-0123456789abcdef0',
          providerID: 'aws:///us-east-1b/i-0123456789abcdef0',
          instanceType: 'm5.large',
          zone: 'us-east-1b',
          capacityType: 'spot',
          pricePerHour: 0.035,
          state: 'running',
          launchedAt: '2025-01-01T00:00:00.000Z',
          tags: {},
        },
        instanceType: type,
      },
    ],
    existingNodes: [
      { name: 'ip-10-0-0-1.ec2.internal', pods: [pod('default', 'new-0')], boundPods: [pod('default', 'old-0')] },
    ],
    unschedulable: [{ pod: pod('ml', 'train-0'), reason: 'NodePool "general": no instance type has nvidia.com/gpu' }],
    warnings: ['something to know'],
    summary: { pods: 4, scheduledPods: 3, nodeClaims: 1, costPerHour: 0.035000000001, lowerBoundPerHour: 0.0312 },
    stats: { pods: 4, durationMs: 3, relaxations: 0, timedOut: false },
    ...over,
  };
}

describe('buildSimulateReport', () => {
  it('carries every field of the JSON contract, with quantities as strings', () => {
    const report = buildSimulateReport(result());
    const claim = report.nodeClaims[0]!;
    expect(claim).toMatchObject({
      name: 'general-1',
      nodePool: 'general',
      instanceType: 'm5.large',
      capacityType: 'spot',
      zone: 'us-east-1b',
      arch: 'amd64',
      pricePerHour: 0.035,
      capacity: { cpu: '2', memory: '8Gi', pods: '29' },
      allocatable: { cpu: '1930m', memory: '7592Mi', pods: '29' },
      requests: { cpu: '1100m', memory: '1152Mi', pods: '2' },
      instanceTypeOptions: ['m5.large', 'm5.xlarge'],
      taints: [{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }],
      pods: ['shop/web-0', 'shop/web-1'],
    });
    expect(claim.labels).toMatchObject({
      team: 'web',
      'karpenter.sh/nodepool': 'general',
      'karpenter.sh/capacity-type': 'spot',
      'topology.kubernetes.io/zone': 'us-east-1b',
      'node.kubernetes.io/instance-type': 'm5.large',
      'kubernetes.io/arch': 'amd64',
    });
    expect(report.existingNodes).toEqual([
      { name: 'ip-10-0-0-1.ec2.internal', pods: ['default/new-0'], boundPods: ['default/old-0'] },
    ]);
    expect(report.unschedulable).toEqual([
      { pod: 'ml/train-0', reason: 'NodePool "general": no instance type has nvidia.com/gpu' },
    ]);
    expect(report.warnings).toEqual(['something to know']);
    expect(report.summary).toEqual({
      pods: 4,
      scheduledPods: 3,
      nodeClaims: 1,
      costPerHour: 0.035,
      lowerBoundPerHour: 0.0312,
    });
  });

  it('names the default NodePool in the summary when it was used', () => {
    expect(buildSimulateReport(result({ defaultNodePool: 'default' })).summary.defaultNodePool).toBe('default');
  });
});

describe('renderSimulateTable', () => {
  it('shows claims, existing nodes, unschedulable pods with reasons and the cost summary', () => {
    const text = renderSimulateTable(buildSimulateReport(result()));
    const lines = text.split('\n');
    expect(lines[0]).toMatch(
      /^NODECLAIM\s+NODEPOOL\s+INSTANCE TYPE\s+CAPACITY\s+ZONE\s+ALLOC CPU\s+ALLOC MEM\s+\$\/HOUR\s+PODS$/,
    );
    expect(lines[1]).toMatch(/^general-1\s+general\s+m5\.large\s+spot\s+us-east-1b\s+1930m\s+7592Mi\s+\$0\.0350\s+2$/);
    expect(text).toMatch(/NODE\s+RUNNING PODS\s+NEW PODS\nip-10-0-0-1\.ec2\.internal\s+1\s+1\n/);
    expect(text).toContain(
      'Unschedulable pods (1):\n  ml/train-0: NodePool "general": no instance type has nvidia.com/gpu',
    );
    expect(text).toContain('Warnings:\n  something to know');
    expect(text).toContain(
      'Summary: 3/4 pods scheduled, 1 new NodeClaim(s), $0.0350/h; LP lower bound $0.0312/h (1.122× the bound).',
    );
    expect(text).not.toContain('embedded default');
  });

  it('says when the embedded default NodePool was used', () => {
    const text = renderSimulateTable(buildSimulateReport(result({ defaultNodePool: 'default', nodeClaims: [] })));
    expect(text.split('\n')[0]).toBe('Using the embedded default NodePool "default" (no NodePool was given).');
    expect(text).toContain('No new NodeClaims needed.');
  });
});
