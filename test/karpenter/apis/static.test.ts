// kubernetes-sigs/karpenter pkg/apis/v1/nodepool_validation_cel_test.go, Context("Replicas"), case by case, against
// Karpless's parser; the "Update Scenarios" (the CRD's transition rule) against the simulated API server, which
// refuses an update as the CRD does.
import { describe, expect, it } from 'vitest';
import type { NodePool } from '../../../shared/api/karpenter';
import { SimCluster } from '../../../shared/sim/sim-cluster';
import { VirtualClock } from '../../../shared/sim/virtual-clock';
import { testNodePool } from '../../../testkit/bed';
import { problemsOf, VALID_NODECLASS } from '../../../testkit/manifests';

/** Karpenter's BeforeEach NodePool as a manifest, with `replicas` and the changes of one case. */
function problems(replicas: number | undefined, change: (spec: Record<string, unknown>) => void = () => {}): string[] {
  const pool = testNodePool('default') as unknown as { spec: Record<string, unknown> };
  const { weight: _weight, ...spec } = pool.spec;
  if (replicas !== undefined) spec.replicas = replicas;
  change(spec);
  const doc = { ...pool, spec };
  return problemsOf(`${JSON.stringify(doc)}\n---\n${VALID_NODECLASS}`, 'np.yaml');
}
const template = (spec: Record<string, unknown>) =>
  spec.template as { metadata?: object; spec: Record<string, unknown> };

describe('Replicas', () => {
  describe('Valid Replicas Values', () => {
    it('should succeed when replicas is set to a positive value', () => expect(problems(5)).toEqual([]));
    it('should succeed when replicas is set to zero', () => expect(problems(0)).toEqual([]));
    it('should succeed when replicas is set to a large value', () => expect(problems(1000)).toEqual([]));
  });
  describe('Invalid Replicas Values', () => {
    it('should fail when replicas is set to a negative value', () => expect(problems(-100)).toHaveLength(1));
  });

  const incompatible: [string, (s: Record<string, unknown>) => void][] = [
    ['limits.cpu', (s) => Object.assign(s, { limits: { cpu: '1000' } })],
    ['limits.memory', (s) => Object.assign(s, { limits: { memory: '2000Gi' } })],
    ['limits.pods', (s) => Object.assign(s, { limits: { pods: '10' } })],
    ['limits.ephemeral-storage', (s) => Object.assign(s, { limits: { 'ephemeral-storage': '10Gi' } })],
    ['weight', (s) => Object.assign(s, { weight: 25 })],
  ];
  it.each(incompatible)('should fail for incompatible fields (%s)', (_, change) => {
    expect(problems(10, change)).toHaveLength(1);
  });

  const compatible: [string, (s: Record<string, unknown>) => void][] = [
    ['limits.nodes', (s) => Object.assign(s, { limits: { nodes: '100' } })],
    [
      'disruption with multiple budgets',
      (s) =>
        Object.assign(s, {
          disruption: {
            consolidationPolicy: 'WhenEmptyOrUnderutilized',
            consolidateAfter: '5m',
            budgets: [
              { nodes: '20%', schedule: '0 9 * * mon-fri', duration: '8h', reasons: ['Drifted', 'Empty'] },
              { nodes: '30%', schedule: '0 22 * * sat,sun', duration: '4h', reasons: ['Underutilized'] },
              { nodes: '5' },
            ],
          },
        }),
    ],
    ['template labels', (s) => Object.assign(template(s), { metadata: { labels: { environment: 'production' } } })],
    [
      'template annotations',
      (s) => Object.assign(template(s), { metadata: { annotations: { 'example.com/last-updated': '2024-01-01' } } }),
    ],
    [
      'taints',
      (s) =>
        Object.assign(template(s).spec, { taints: [{ key: 'gpu-workload', value: 'enabled', effect: 'NoSchedule' }] }),
    ],
    [
      'startup taints',
      (s) =>
        Object.assign(template(s).spec, {
          startupTaints: [{ key: 'example.com/initializing', value: 'true', effect: 'NoSchedule' }],
        }),
    ],
    [
      'requirements',
      (s) =>
        Object.assign(template(s).spec, {
          requirements: [
            {
              key: 'node.kubernetes.io/instance-type',
              operator: 'In',
              values: ['m5.large', 'm5.xlarge', 'm5.2xlarge', 'c5.large', 'c5.xlarge', 'r5.large', 'r5.xlarge'],
              minValues: 3,
            },
            { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-west-2a', 'us-west-2b', 'us-west-2c'] },
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand', 'spot'] },
            { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
            { key: 'karpenter.k8s.aws/instance-memory', operator: 'Gt', values: ['8192'] },
            { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lt', values: ['64'] },
          ],
        }),
    ],
    ['expireAfter', (s) => Object.assign(template(s).spec, { expireAfter: '72h' })],
    ['terminationGracePeriod', (s) => Object.assign(template(s).spec, { terminationGracePeriod: '300s' })],
  ];
  it.each(compatible)('should succeed for compatible fields (%s)', (_, change) => {
    expect(problems(10, change)).toEqual([]);
  });

  it('should succeed when consolidateAfter is omitted on a static NodePool', () => {
    expect(
      problems(3, (s) => {
        const { consolidateAfter: _c, ...disruption } = s.disruption as Record<string, unknown>;
        s.disruption = disruption;
      }),
    ).toEqual([]);
  });

  describe('Update Scenarios', () => {
    const cluster = () => new SimCluster({ clock: new VirtualClock(0) });
    const withReplicas = (replicas: number | undefined, limits?: Record<string, string>): NodePool => {
      const p = testNodePool('default');
      return {
        ...p,
        spec: { ...p.spec, ...(replicas === undefined ? {} : { replicas }), ...(limits ? { limits } : {}) },
      };
    };
    const TRANSITION =
      'NodePool/default: spec: Cannot transition NodePool between static (replicas set) and dynamic (replicas unset) provisioning modes';

    it('should succeed when increasing replicas in a NodePool', () => {
      const c = cluster();
      c.upsert(withReplicas(3));
      expect(() => c.upsert(withReplicas(5))).not.toThrow();
    });
    it('should fail when changing the NodePool from static to dynamic', () => {
      const c = cluster();
      c.upsert(withReplicas(3));
      expect(() => c.upsert(withReplicas(undefined))).toThrow(TRANSITION);
    });
    it('should fail when changing the NodePool from dynamic to static', () => {
      const c = cluster();
      c.upsert(withReplicas(undefined));
      expect(() => c.upsert(withReplicas(3))).toThrow(TRANSITION);
    });
    it('should succeed when changing the static NodePool nodes limit', () => {
      const c = cluster();
      c.upsert(withReplicas(3, { nodes: '10' }));
      expect(() => c.upsert(withReplicas(3, { nodes: '100' }))).not.toThrow();
    });
  });
});
