// Karpenter's pkg/controllers/provisioning/suite_test.go (and the cases of issue 13's "Why" 2 that it and the
// scheduling suites cover), translated: each test names the file, Describe / Context and It it mirrors.
import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../../shared/api/kube';
import { fleetOverrides, subnetAdmitted } from '../../../shared/aws/ec2/fleet';
import type { ResolvedSubnet } from '../../../shared/aws/ec2/selectors';
import { launchOptions } from '../../../shared/controllers/offerings';
import { restrictOfferings } from '../../../shared/sim/offering-filter';
import { runSimulation } from '../../../shared/sim/simulation';
import { clusterNode, daemonSet, ec2NodeClass, nodePool, pod, pods } from '../../../testkit/builders';
import { fixtureInstanceTypes } from '../../../testkit/instance-types';
import {
  affinityTerm,
  Family,
  fixtureEngine,
  Hostname,
  InstanceTypeLabel,
  labels,
  Size,
  skew,
  spread,
  withZoneIds,
  Zone,
  ZoneId,
} from '../../../testkit/karpenter-scheduling';
import { claimOf, run, scheduledCount, zoneOf } from '../../../testkit/solve';

const P = 'provisioning/suite_test.go Provisioning';
const GiB = 2 ** 30;

const withPort = (port: number, cpu = '100m'): Pod['spec'] => ({
  containers: [{ name: 'app', ports: [{ containerPort: port, hostPort: port }], resources: { requests: { cpu } } }],
});

describe(`${P}`, () => {
  it('should provision nodes', () => {
    expect(run({ pods: [pod()] }).nodeClaims).toHaveLength(1);
  });

  it('Should provision nodes for multiple pods', () => {
    const r = run({ pods: pods(2, { cpu: '100m' }) });
    expect(r.nodeClaims).toHaveLength(1);
    expect(scheduledCount(r)).toBe(2);
  });

  it('should mark pod as unschedulable if there are no valid nodepools', () => {
    const r = run({ nodePools: [], pods: [pod()] });
    expect(r.unschedulable[0]?.reason).toMatch(/no NodePool/);
  });

  it('should provision nodes for accelerators', () => {
    const c = run({ pods: [pod({ requests: { 'nvidia.com/gpu': 1 } })] }).nodeClaims[0];
    expect(c?.instanceTypeOptions.every((t) => t.info.gpu !== undefined)).toBe(true);
  });
});

describe(`${P} Resource Limits`, () => {
  it('should not schedule when limits are exceeded', () => {
    // As upstream: the pool's limit is 20 CPU and a NodeClaim of the pool already has 100 (the usage the provisioner
    // reads from its claims).
    const r = run({
      nodePools: [nodePool({ limits: { cpu: '20' } })],
      nodePoolUsage: new Map([['default', { cpu: 100_000 }]]),
      pods: [pod()],
    });
    expect(r.nodeClaims).toEqual([]);
    expect(r.unschedulable).toHaveLength(1);
  });

  it('should partially schedule if limits would be exceeded', () => {
    const np = nodePool({
      limits: { cpu: '4' },
      requirements: [{ key: InstanceTypeLabel, operator: 'In', values: ['m5.large'] }],
    });
    const r = run({ nodePools: [np], pods: pods(3, { cpu: '1500m' }) });
    expect(r.nodeClaims).toHaveLength(2);
    expect(r.unschedulable).toHaveLength(1);
  });
});

describe(`${P} Daemonsets`, () => {
  it('should account for daemonsets', () => {
    const ds = daemonSet('ds', { cpu: '1', memory: '1Gi' });
    const c = run({ daemonSets: [ds], pods: [pod({ cpu: '1', memory: '1Gi' })] }).nodeClaims[0];
    expect(c?.requests.cpu).toBe(2000);
    expect(c?.instanceTypeOptions.every((t) => (t.allocatable.cpu ?? 0) >= 2000)).toBe(true);
  });

  it('should account for daemonset hostports', () => {
    const ds = daemonSet('ds', { containers: [{ name: 'ds', ports: [{ containerPort: 8080, hostPort: 8080 }] }] });
    const r = run({ daemonSets: [ds], pods: [pod({ ...withPort(8080) })] });
    // Every new node runs the DaemonSet on 8080: a pod asking for 8080 can never land on one.
    expect(r.nodeClaims).toHaveLength(0);
    expect(r.unschedulable[0]?.reason).toMatch(/host port 0\.0\.0\.0:8080\/TCP is bound by a DaemonSet/);
    // Another port is fine.
    expect(run({ daemonSets: [ds], pods: [pod({ ...withPort(9090) })] }).nodeClaims).toHaveLength(1);
  });

  it('should not account for daemonset hostports when daemonset would not schedule on selected node', () => {
    const ds = daemonSet('ds', {
      containers: [{ name: 'ds', ports: [{ containerPort: 8080, hostPort: 8080 }] }],
      nodeSelector: { dedicated: 'other' },
    });
    expect(run({ daemonSets: [ds], pods: [pod({ ...withPort(8080) })] }).nodeClaims).toHaveLength(1);
  });

  it('should not schedule if daemonset overhead is too large', () => {
    const ds = daemonSet('ds', { cpu: '10000', memory: '10000Gi' });
    expect(run({ daemonSets: [ds], pods: [pod()] }).unschedulable).toHaveLength(1);
  });

  it('should ignore daemonsets without matching tolerations', () => {
    const np = nodePool({ taints: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }] });
    const ds = daemonSet('ds', { cpu: '1', memory: '1Gi' });
    const p = pod({ cpu: '1', tolerations: [{ key: 'foo', operator: 'Exists' }] });
    expect(run({ nodePools: [np], daemonSets: [ds], pods: [p] }).nodeClaims[0]?.requests.cpu).toBe(1000);
  });

  it('should ignore daemonsets when no instance types meet the daemonset requirements', () => {
    const ds = daemonSet('ds', { cpu: '1', nodeSelector: { [InstanceTypeLabel]: 'does-not-exist' } });
    expect(run({ daemonSets: [ds], pods: [pod({ cpu: '1' })] }).nodeClaims[0]?.requests.cpu).toBe(1000);
  });

  it('should account for daemonsets with a custom label nodeSelector that matches the nodepool', () => {
    const np = nodePool({ labels: { team: 'a' } });
    const ds = daemonSet('ds', { cpu: '1', nodeSelector: { team: 'a' } });
    expect(run({ nodePools: [np], daemonSets: [ds], pods: [pod({ cpu: '1' })] }).nodeClaims[0]?.requests.cpu).toBe(
      2000,
    );
  });

  it('should filter out daemonsets based on instance type requirements', () => {
    // As upstream: two DaemonSets, each charged only to the types its affinity selects. The one on `large` types
    // (1 CPU) leaves no room there for the 1 CPU pod; the one on `2xlarge` types (10 CPU) fits none of them; so the
    // plan is an `xlarge`, charged neither.
    const small = daemonSet('small', { cpu: '1', nodeSelector: { [Size]: 'large' } });
    const big = daemonSet('big', { cpu: '10', nodeSelector: { [Size]: '2xlarge' } });
    const c = run({ daemonSets: [small, big], pods: [pod({ cpu: '1', memory: '1Gi' })] }).nodeClaims[0];
    expect(c?.instanceTypeOptions[0]?.info.size).toBe('xlarge');
    expect(c?.daemonSetOverhead.cpu ?? 0).toBe(0);
    const sizes = new Set(c?.instanceTypeOptions.map((t) => t.info.size));
    expect(sizes.has('large')).toBe(false);
    expect(sizes.has('2xlarge')).toBe(false);
    expect(sizes.has('4xlarge')).toBe(true);
  });

  it('should account daemonsets with NotIn operator and unspecified key', () => {
    const ds = daemonSet('ds', {
      cpu: '1',
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'foo', operator: 'NotIn', values: ['bar'] }] }],
          },
        },
      },
    });
    expect(run({ daemonSets: [ds], pods: [pod({ cpu: '1' })] }).nodeClaims[0]?.requests.cpu).toBe(2000);
  });

  it('should consider a daemonset schedulable with multiple node affinity terms', () => {
    const ds = daemonSet('ds', {
      cpu: '1',
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }] },
              { matchExpressions: [{ key: Zone, operator: 'In', values: ['us-east-1a', 'us-east-1b', 'us-east-1c'] }] },
            ],
          },
        },
      },
    });
    expect(run({ daemonSets: [ds], pods: [pod({ cpu: '1' })] }).nodeClaims[0]?.requests.cpu).toBe(2000);
  });

  it('should consider a daemonset schedulable with a PreferNoSchedule taint', () => {
    const np = nodePool({ taints: [{ key: 'foo', value: 'bar', effect: 'PreferNoSchedule' }] });
    const ds = daemonSet('ds', { cpu: '1' });
    expect(run({ nodePools: [np], daemonSets: [ds], pods: [pod({ cpu: '1' })] }).nodeClaims[0]?.requests.cpu).toBe(
      2000,
    );
  });

  it('should create a nodeclaim with resource requests with daemon overhead', () => {
    const ds = daemonSet('ds', { cpu: '1', memory: '1Gi' });
    const c = run({ daemonSets: [ds], pods: [pod({ cpu: '1', memory: '1Gi' })] }).nodeClaims[0];
    expect(c?.requests).toMatchObject({ cpu: 2000, memory: 2 * GiB });
    expect(c?.daemonSetOverhead).toMatchObject({ cpu: 1000, memory: GiB });
  });

  it('should not double-count daemon overhead when multiple pods are scheduled to the same nodeclaim', () => {
    const ds = daemonSet('ds', { cpu: '1', memory: '1Gi' });
    const c = run({ daemonSets: [ds], pods: pods(2, { cpu: '1', memory: '1Gi' }) }).nodeClaims[0];
    expect(c?.pods).toHaveLength(2);
    expect(c?.requests.cpu).toBe(3000);
  });
});

describe(`${P} Multiple NodePools`, () => {
  it('should schedule to an explicitly selected NodePool', () => {
    const r = run({
      nodePools: [nodePool({ name: 'a' }), nodePool({ name: 'b' })],
      pods: [pod({ nodeSelector: { 'karpenter.sh/nodepool': 'b' } })],
    });
    expect(r.nodeClaims[0]?.nodePool).toBe('b');
  });

  it('should not match NodePool with PreferNoSchedule taint when other NodePool match', () => {
    const a = nodePool({ name: 'a', taints: [{ key: 'foo', value: 'bar', effect: 'PreferNoSchedule' }] });
    const r = run({ nodePools: [a, nodePool({ name: 'b' })], pods: [pod()] });
    expect(r.nodeClaims[0]?.nodePool).toBe('b');
  });

  it('Weighted NodePools: should schedule to the nodepool with the highest priority always', () => {
    const r = run({
      nodePools: [nodePool({ name: 'a' }), nodePool({ name: 'b', weight: 50 }), nodePool({ name: 'c', weight: 100 })],
      pods: pods(3),
    });
    expect(r.nodeClaims.every((c) => c.nodePool === 'c')).toBe(true);
  });

  it('Weighted NodePools: should schedule to explicitly selected nodepool even if other nodePools are higher priority', () => {
    const r = run({
      nodePools: [nodePool({ name: 'a', weight: 100 }), nodePool({ name: 'b' })],
      pods: [pod({ nodeSelector: { 'karpenter.sh/nodepool': 'b' } })],
    });
    expect(r.nodeClaims[0]?.nodePool).toBe('b');
  });
});

describe('scheduling/topology_test.go Topology Pod Affinity/Anti-Affinity', () => {
  it('should respect pod affinity (hostname)', () => {
    // The followers are each larger than the pod they follow: the claim grows to a type that holds the whole group.
    const leader = pod({ name: 'leader', labels: { security: 's2' }, cpu: '500m' });
    const aff = {
      podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [affinityTerm(Hostname, { security: 's2' })] },
    };
    const followers = pods(2, { name: 'follower', cpu: '2', affinity: aff });
    const r = run({ pods: [leader, ...followers] });
    expect(r.unschedulable).toEqual([]);
    expect(r.nodeClaims).toHaveLength(1);
    expect(claimOf(r, 'follower-0')).toBe(claimOf(r, 'leader'));
    expect(claimOf(r, 'follower-1')).toBe(claimOf(r, 'leader'));
  });

  it('should respect self pod affinity (hostname)', () => {
    const aff = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [affinityTerm(Hostname)] } };
    const r = run({ pods: pods(3, { labels, cpu: '100m', affinity: aff }) });
    expect(r.nodeClaims).toHaveLength(1);
    expect(scheduledCount(r)).toBe(3);
  });

  it('should allow two nodes to be created when two pods with matching affinities have incompatible selectors', () => {
    const aff = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [affinityTerm(Zone)] } };
    const a = pod({ name: 'a', labels, affinity: aff, nodeSelector: { [Zone]: 'us-east-1a' } });
    const b = pod({ name: 'b', labels, affinity: aff, nodeSelector: { [Zone]: 'us-east-1b' } });
    const r = run({ pods: [a, b] });
    // No domain b may use holds a match, so it opens one of its own.
    expect(r.unschedulable).toEqual([]);
    expect(r.nodeClaims.map(zoneOf).sort()).toEqual(['us-east-1a', 'us-east-1b']);
  });

  it('should allow two nodes to be created when two pods with matching affinities have incompatible selectors (existing match)', () => {
    const aff = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [affinityTerm(Zone)] } };
    const n = clusterNode({ name: 'n', zone: 'us-east-1c', pods: [pod({ labels, nodeName: 'n' })] });
    const p = pod({ labels, affinity: aff, nodeSelector: { [Zone]: 'us-east-1a' } });
    const r = run({ existingNodes: [n], pods: [p] });
    expect(zoneOf(claimOf(r, p))).toBe('us-east-1a');
  });

  it('should separate nodes using simple pod anti-affinity on hostname', () => {
    const anti = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [affinityTerm(Hostname)] } };
    const r = run({ pods: pods(3, { labels, cpu: '100m', affinity: anti }) });
    expect(skew(r, Hostname)).toEqual([1, 1, 1]);
  });

  it('should not violate pod anti-affinity on zone', () => {
    // As upstream: three labelled 2 CPU pods, one pinned to each zone, and an unlabelled pod with zonal
    // anti-affinity to them: every zone holds one, so it cannot schedule.
    const affLabels = { security: 's2' };
    const pinned = ['us-east-1a', 'us-east-1b', 'us-east-1c'].map((zone) =>
      pod({ labels: affLabels, cpu: '2', nodeSelector: { [Zone]: zone } }),
    );
    const anti = {
      podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [affinityTerm(Zone, affLabels)] },
    };
    const affPod = pod({ affinity: anti });
    const r = run({ pods: [...pinned, affPod] });
    for (const p of pinned) expect(claimOf(r, p)).toBeDefined();
    expect(r.unschedulable.map((u) => u.pod.metadata.name)).toEqual([affPod.metadata.name]);
  });

  it('should not schedule pods with affinity to a non-existent pod', () => {
    const aff = {
      podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [affinityTerm(Zone, { app: 'nobody' })] },
    };
    expect(run({ pods: [pod({ affinity: aff })] }).unschedulable).toHaveLength(1);
  });
});

describe('scheduling/topology_test.go Topology Zonal (terminal pods)', () => {
  const nodeObj = (name: string, zone: string): Node => ({
    kind: 'Node',
    metadata: { name, labels: { [Zone]: zone, [Hostname]: name, [InstanceTypeLabel]: 'm5.xlarge' } },
    spec: {},
    status: { allocatable: { cpu: '4', memory: '15Gi', pods: '58' } },
  });
  const bound = (name: string, node: string, phase: 'Succeeded' | 'Failed'): Pod => ({
    ...pod({ name, labels, cpu: '3' }),
    spec: { ...pod({ labels, cpu: '3' }).spec, nodeName: node },
    status: { phase },
  });

  it('should only count running/scheduled pods with matching labels scheduled to nodes with a corresponding domain', async () => {
    const np = nodePool({ requirements: [{ key: Zone, operator: 'In', values: ['us-east-1a', 'us-east-1b'] }] });
    const done = [
      bound('done-1', 'n1', 'Succeeded'),
      bound('done-2', 'n1', 'Failed'),
      bound('done-3', 'n1', 'Succeeded'),
    ];
    const pending = pods(2, { name: 'new', labels, cpu: '3', topologySpreadConstraints: [spread(Zone)] });
    const result = await runSimulation(
      {
        pods: [...done, ...pending],
        nodes: [nodeObj('n1', 'us-east-1a')],
        nodePools: [np],
        nodeClasses: [ec2NodeClass()],
      },
      fixtureEngine(),
    );
    // The finished pods neither use n1's cpu nor count in us-east-1a: one new pod joins n1, one goes to 1b.
    expect(result.unschedulable).toEqual([]);
    expect(result.existingNodes[0]?.pods).toHaveLength(1);
    expect(result.nodeClaims.map((c) => c.plan.cheapest.zone)).toEqual(['us-east-1b']);
  });
});

describe('karpenter-provider-aws test/suites/scheduling Scheduling', () => {
  it('should support well-known labels for zone id selection', async () => {
    const p = pod({ cpu: '1', nodeSelector: { [ZoneId]: 'use1-az2' } });
    const result = await runSimulation(
      { pods: [p], nodePools: [nodePool()], nodeClasses: [ec2NodeClass()] },
      fixtureEngine(),
    );
    expect(result.unschedulable).toEqual([]);
    expect(result.nodeClaims[0]?.instance.zone).toBe('us-east-1b');
  });

  it('should support well-known labels for zone id selection (launch filters)', () => {
    const reqs = [{ key: ZoneId, operator: 'In' as const, values: ['use1-az3'] }];
    const types = withZoneIds(fixtureInstanceTypes()).filter((t) => t.name === 'm5.large');
    expect(restrictOfferings(types, reqs)[0]?.offerings.map((o) => o.zone)).toEqual(['us-east-1c', 'us-east-1c']);
    const claim = { requirements: reqs, instanceTypeOptions: ['m5.large'] } as Parameters<typeof launchOptions>[0];
    expect(new Set(launchOptions(claim, types)[0]?.offerings.map((o) => o.zone))).toEqual(new Set(['us-east-1c']));
    const subnets = new Map<string, ResolvedSubnet>(
      ['a', 'b', 'c'].map((z, i) => [
        `us-east-1${z}`,
        { id: `subnet-${z}`, zone: `us-east-1${z}`, zoneId: `use1-az${i + 1}` } as ResolvedSubnet,
      ]),
    );
    const overrides = fleetOverrides(
      fixtureInstanceTypes().filter((t) => t.name === 'm5.large'),
      'on-demand',
      subnets,
      () => 'ami-1',
      reqs,
    );
    expect(overrides.map((o) => o.subnetId)).toEqual(['subnet-c']);
    expect(subnetAdmitted(reqs, subnets.get('us-east-1a') as ResolvedSubnet)).toBe(false);
  });

  it('should support well-known labels for instance family selection', () => {
    const c = run({ pods: [pod({ nodeSelector: { [Family]: 'c5' } })] }).nodeClaims[0];
    expect(c?.instanceTypeOptions.every((t) => t.info.family === 'c5')).toBe(true);
  });

  it('should support well-known labels for zone selection', () => {
    expect(zoneOf(run({ pods: [pod({ nodeSelector: { [Zone]: 'us-east-1c' } })] }).nodeClaims[0])).toBe('us-east-1c');
  });

  it('should provision a node for naked pods', () => {
    expect(run({ pods: [pod()] }).nodeClaims).toHaveLength(1);
  });
});
