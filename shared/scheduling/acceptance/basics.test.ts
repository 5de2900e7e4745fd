import { describe, expect, it } from 'vitest';
import { clusterNode, daemonSet, nodePool, pod, pods } from '../../../testkit/builders';
import { claimOf, run, scheduledCount } from '../../../testkit/solve';

const GiB = 2 ** 30;

describe('acceptance: resources and packing', () => {
  it('gives a small pod the cheapest, smallest instance', () => {
    const r = run({ pods: [pod({ cpu: '100m', memory: '128Mi' })] });
    expect(r.nodeClaims).toHaveLength(1);
    const c = r.nodeClaims[0];
    expect(c?.cheapest.instanceType).toBe('m6g.large');
    expect(c?.cheapest.capacityType).toBe('spot');
    expect(c?.instanceTypeOptions[0]?.name).toBe('m6g.large');
    expect(c?.instanceTypeOptions.length).toBeLessThanOrEqual(60);
  });

  it('orders instance-type options by price', () => {
    const r = run({ pods: [pod({ cpu: '1', memory: '1Gi' })] });
    const prices = r.nodeClaims[0]?.instanceTypeOptions.map((t) =>
      Math.min(...t.offerings.filter((o) => o.capacityType === 'spot').map((o) => o.price)),
    );
    expect(prices).toEqual([...(prices ?? [])].sort((a, b) => a - b));
  });

  it('packs many small pods onto few nodes', () => {
    const r = run({ pods: pods(40, { cpu: '500m', memory: '512Mi' }) });
    expect(scheduledCount(r)).toBe(40);
    // 20 cores of requests: at most two 16-vCPU nodes' worth plus a remainder.
    expect(r.nodeClaims.length).toBeLessThanOrEqual(3);
  });

  it('opens one claim per pod when each needs a whole node', () => {
    const r = run({ pods: pods(3, { cpu: '15', memory: '1Gi' }) });
    expect(r.nodeClaims).toHaveLength(3);
    expect(r.nodeClaims.every((c) => c.instanceTypeOptions.every((t) => t.info.vcpu >= 16))).toBe(true);
  });

  it('sizes for the larger of init containers and containers', () => {
    const p = pod({
      containers: [{ name: 'app', resources: { requests: { cpu: '100m' } } }],
      initContainers: [{ name: 'init', resources: { requests: { cpu: '6', memory: '1Gi' } } }],
    });
    const r = run({ pods: [p] });
    expect(r.nodeClaims[0]?.requests.cpu).toBe(6000);
    expect(r.nodeClaims[0]?.instanceTypeOptions.every((t) => t.info.vcpu >= 8)).toBe(true);
  });

  it('adds restartable sidecars to the running total', () => {
    const p = pod({
      containers: [{ name: 'app', resources: { requests: { cpu: '3' } } }],
      initContainers: [{ name: 'proxy', restartPolicy: 'Always', resources: { requests: { cpu: '2' } } }],
    });
    const r = run({ pods: [p] });
    expect(r.nodeClaims[0]?.requests.cpu).toBe(5000);
    expect(r.nodeClaims[0]?.instanceTypeOptions.every((t) => t.info.vcpu >= 8)).toBe(true);
  });

  it('counts pod overhead', () => {
    const r = run({ pods: [pod({ cpu: '1', overhead: { cpu: '250m', memory: '120Mi' } })] });
    expect(r.nodeClaims[0]?.requests.cpu).toBe(1250);
  });

  it('is limited by the pod count of the instance type', () => {
    // m5.large allows 29 pods; 40 tiny pods cannot share one.
    const r = run({
      pods: pods(40, { cpu: '10m', memory: '10Mi' }),
      nodePools: [
        nodePool({ requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large'] }] }),
      ],
    });
    expect(r.nodeClaims).toHaveLength(2);
    expect(Math.max(...r.nodeClaims.map((c) => c.pods.length))).toBe(29);
  });

  it('keeps pods with conflicting host ports on different nodes', () => {
    const ports = [{ containerPort: 80, hostPort: 8080 }];
    const mk = (name: string) =>
      pod({ name, containers: [{ name: 'c', ports, resources: { requests: { cpu: '100m' } } }] });
    const r = run({ pods: [mk('a'), mk('b'), mk('c')] });
    expect(r.nodeClaims).toHaveLength(3);
  });

  it('lets host ports on different protocols or addresses share a node', () => {
    const mk = (name: string, protocol: 'TCP' | 'UDP', hostIP?: string) =>
      pod({
        name,
        containers: [
          {
            name: 'c',
            ports: [{ containerPort: 53, hostPort: 53, protocol, ...(hostIP ? { hostIP } : {}) }],
            resources: { requests: { cpu: '100m' } },
          },
        ],
      });
    const r = run({ pods: [mk('tcp', 'TCP', '10.0.0.1'), mk('udp', 'UDP'), mk('tcp2', 'TCP', '10.0.0.2')] });
    expect(r.nodeClaims).toHaveLength(1);
  });

  it('adds the overhead of DaemonSets that land on the pool', () => {
    const r = run({ pods: [pod({ cpu: '1' })], daemonSets: [daemonSet('logs', { cpu: '500m', memory: '256Mi' })] });
    const c = r.nodeClaims[0];
    expect(c?.daemonSetOverhead.cpu).toBe(500);
    expect(c?.requests.cpu).toBe(1500);
  });

  it('ignores DaemonSets that do not tolerate the pool taints or do not match it', () => {
    const pool = nodePool({ taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }] });
    const tolerating = daemonSet('tolerating', { cpu: '200m', tolerations: [{ operator: 'Exists' }] });
    const plain = daemonSet('plain', { cpu: '300m' });
    const arm = daemonSet('arm-only', {
      cpu: '400m',
      tolerations: [{ operator: 'Exists' }],
      nodeSelector: { 'kubernetes.io/arch': 's390x' },
    });
    const p = pod({ cpu: '1', tolerations: [{ key: 'dedicated', operator: 'Exists' }] });
    const r = run({ pods: [p], nodePools: [pool], daemonSets: [tolerating, plain, arm] });
    expect(r.nodeClaims[0]?.daemonSetOverhead.cpu).toBe(200);
  });

  it('counts a DaemonSet whose second ORed node-affinity term matches the pool, and none whose terms are all empty', () => {
    const terms = (...t: { key: string; operator: 'In'; values: string[] }[][]) => ({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: t.map((e) => ({ matchExpressions: e })) },
      },
    });
    const s390x = [{ key: 'kubernetes.io/arch', operator: 'In' as const, values: ['s390x'] }];
    const linux = [{ key: 'kubernetes.io/os', operator: 'In' as const, values: ['linux'] }];
    const ored = daemonSet('ored', { cpu: '300m', affinity: terms(s390x, linux) });
    const empty = daemonSet('empty', { cpu: '400m', affinity: terms([]) });
    const r = run({ pods: [pod({ cpu: '1' })], daemonSets: [ored, empty] });
    // Only the first term used to count: the s390x one, so the DaemonSet was left out.
    expect(r.nodeClaims[0]?.daemonSetOverhead.cpu).toBe(300);
  });

  it('picks a larger type when DaemonSet overhead leaves too little room', () => {
    const r = run({ pods: [pod({ cpu: '1500m' })], daemonSets: [daemonSet('big', { cpu: '1', memory: '128Mi' })] });
    expect(r.nodeClaims[0]?.instanceTypeOptions.every((t) => t.info.vcpu >= 4)).toBe(true);
  });

  it('fills existing nodes before launching', () => {
    const node = clusterNode({ name: 'node-a', nodePool: 'default' });
    const r = run({ pods: pods(3, { cpu: '500m' }), existingNodes: [node] });
    expect(r.nodeClaims).toHaveLength(0);
    expect(r.existingNodes[0]?.pods).toHaveLength(3);
  });

  it('reuses in-flight capacity and ignores its startup taints', () => {
    const node = clusterNode({
      name: 'default-7',
      nodeClaim: 'default-7',
      inflight: true,
      taints: [{ key: 'node.cilium.io/agent-not-ready', effect: 'NoExecute' }],
      startupTaints: [{ key: 'node.cilium.io/agent-not-ready', effect: 'NoExecute' }],
    });
    const r = run({ pods: [pod({ cpu: '1' })], existingNodes: [node] });
    expect(r.nodeClaims).toHaveLength(0);
    expect(r.existingNodes[0]?.pods).toHaveLength(1);
  });

  it('does not use an initialized node whose taint the pod does not tolerate', () => {
    const node = clusterNode({ name: 'tainted', taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] });
    const r = run({ pods: [pod({ cpu: '1' })], existingNodes: [node] });
    expect(r.nodeClaims).toHaveLength(1);
    expect(r.existingNodes[0]?.pods).toHaveLength(0);
  });

  it('does not place pods on nodes marked for deletion', () => {
    const node = clusterNode({ name: 'going', markedForDeletion: true });
    const r = run({ pods: [pod({ cpu: '1' })], existingNodes: [node] });
    expect(r.nodeClaims).toHaveLength(1);
  });

  it('spills over to new capacity when existing nodes are full', () => {
    const node = clusterNode({ name: 'small', instanceType: 'm5.large' });
    const r = run({ pods: pods(3, { cpu: '1' }), existingNodes: [node] });
    expect(r.existingNodes[0]?.pods).toHaveLength(1);
    expect(scheduledCount(r)).toBe(3);
  });

  it('only uses existing nodes when new capacity is disabled', () => {
    const node = clusterNode({ name: 'small', instanceType: 'm5.large' });
    const r = run({ pods: pods(3, { cpu: '1' }), existingNodes: [node], options: { existingNodesOnly: true } });
    expect(r.nodeClaims).toHaveLength(0);
    expect(r.unschedulable).toHaveLength(2);
    expect(r.unschedulable[0]?.reason).toMatch(/new capacity is disabled/);
  });

  it('names claims <nodepool>-<n> by default, or with the given function, deterministically', () => {
    const mk = () => [pod({ name: 'a', cpu: '15' }), pod({ name: 'b', cpu: '15' })];
    const r1 = run({ pods: mk() });
    expect(r1.nodeClaims.map((c) => c.name).sort()).toEqual(['default-1', 'default-2']);
    const r2 = run({ pods: mk(), options: { nameNodeClaim: (p, n) => `${p}-x${n}` } });
    expect(r2.nodeClaims.map((c) => c.name).sort()).toEqual(['default-x1', 'default-x2']);
    const r3 = run({ pods: mk() });
    expect(r3.nodeClaims.map((c) => [c.name, c.cheapest.instanceType, c.pods.map((p) => p.metadata.name)])).toEqual(
      r1.nodeClaims.map((c) => [c.name, c.cheapest.instanceType, c.pods.map((p) => p.metadata.name)]),
    );
  });

  it('reports requests as pods plus DaemonSet overhead', () => {
    const r = run({
      pods: [pod({ cpu: '500m', memory: '1Gi' }), pod({ cpu: '500m', memory: '1Gi' })],
      daemonSets: [daemonSet('agent', { cpu: '100m', memory: '128Mi' })],
    });
    expect(r.nodeClaims).toHaveLength(1);
    expect(r.nodeClaims[0]?.requests).toMatchObject({ cpu: 1100, memory: 2 * GiB + 128 * 2 ** 20, pods: 3 });
  });

  it('returns invalid pods as unschedulable without failing the batch', () => {
    const bad = pod({ name: 'bad', requests: { cpu: 'lots' } });
    const good = pod({ name: 'good', cpu: '1' });
    const r = run({ pods: [bad, good] });
    expect(claimOf(r, 'good')).toBeDefined();
    expect(r.unschedulable.map((u) => u.pod.metadata.name)).toEqual(['bad']);
    expect(r.unschedulable[0]?.reason).toMatch(/invalid resources/);
  });

  it('rejects a Gt requirement without an integer value as invalid', () => {
    const p = pod({
      name: 'gt',
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gt', values: ['many'] }] },
            ],
          },
        },
      },
    });
    const r = run({ pods: [p] });
    expect(r.unschedulable[0]?.reason).toMatch(/invalid scheduling constraint.*exactly one integer/);
  });

  it('says when no NodePool exists', () => {
    const r = run({ pods: [pod({ cpu: '1' })], nodePools: [] });
    expect(r.unschedulable[0]?.reason).toBe('no NodePool is defined');
  });

  it('stops after the timeout and defers the rest to the next pass', () => {
    let t = 0;
    const r = run({ pods: pods(100, { cpu: '100m' }), options: { timeoutMs: 5, now: () => (t += 10) } });
    expect(r.stats.timedOut).toBe(true);
    expect(r.deferred?.length).toBeGreaterThan(0);
    expect(r.unschedulable).toEqual([]);
  });
});
