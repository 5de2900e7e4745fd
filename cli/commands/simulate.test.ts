import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bufferIO } from '../io';
import { main } from '../main';

const EXAMPLES = join(import.meta.dirname, '../../examples/cluster');

async function run(...argv: string[]) {
  const io = bufferIO();
  const code = await main(['simulate', ...argv], io);
  return { code, stdout: io.stdout.join(''), stderr: io.stderr.join('') };
}

function yamlFile(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'karpless-sim-'));
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const deployment = (name: string, replicas: number, extra = '') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: { app: ${name} }
  template:
    metadata:
      labels: { app: ${name} }
    spec:
${extra}      containers:
        - name: app
          resources:
            requests: { cpu: 500m, memory: 1Gi }
`;

type Report = {
  nodeClaims: Record<string, unknown>[];
  existingNodes: { name: string; pods: string[] }[];
  unschedulable: { pod: string; reason: string }[];
  warnings: string[];
  summary: Record<string, number | string>;
};

describe('karpless simulate on the examples', () => {
  let report: Report;
  let stderr: string;
  beforeAll(async () => {
    const out = await run('-f', EXAMPLES, '--output', 'json');
    expect(out.code).toBe(0);
    report = JSON.parse(out.stdout) as Report;
    stderr = out.stderr;
  });

  it('schedules every pod and reports the JSON contract field by field', () => {
    expect(report.unschedulable).toEqual([]);
    expect(report.summary.pods).toBe(15);
    expect(report.summary.scheduledPods).toBe(15);
    expect(report.summary.nodeClaims).toBe(report.nodeClaims.length);
    expect(stderr).toBe('');
    for (const claim of report.nodeClaims) {
      for (const field of [
        'name',
        'nodePool',
        'instanceType',
        'capacityType',
        'zone',
        'arch',
        'pricePerHour',
        'capacity',
        'allocatable',
        'instanceTypeOptions',
        'labels',
        'taints',
        'pods',
      ]) {
        expect(claim, field).toHaveProperty(field);
      }
      const capacity = claim.capacity as Record<string, string>;
      const allocatable = claim.allocatable as Record<string, string>;
      for (const q of [capacity.cpu, capacity.memory, capacity.pods, allocatable.cpu, allocatable.memory]) {
        expect(q).toMatch(/^\d+(m|Ki|Mi|Gi|Ti)?$/);
      }
      expect(claim.pricePerHour).toBeGreaterThan(0);
      expect(['spot', 'on-demand']).toContain(claim.capacityType);
      expect(claim.zone).toMatch(/^us-east-1[a-f]$/);
      expect((claim.instanceTypeOptions as string[])[0]).toBeTypeOf('string');
      expect((claim.instanceTypeOptions as string[]).length).toBeLessThanOrEqual(60);
      expect((claim.labels as Record<string, string>)['karpenter.sh/nodepool']).toBe(claim.nodePool);
      expect((claim.labels as Record<string, string>)['node.kubernetes.io/instance-type']).toBe(claim.instanceType);
    }
    const cost = report.nodeClaims.reduce((s, c) => s + (c.pricePerHour as number), 0);
    expect(report.summary.costPerHour).toBeCloseTo(cost, 6);
    expect(report.summary.lowerBoundPerHour).toBeGreaterThan(0);
    expect(report.summary.lowerBoundPerHour).toBeLessThanOrEqual(report.summary.costPerHour as number);
  });

  it('names pods after their controllers and places each workload where its constraints say', () => {
    const placement = new Map<string, Record<string, unknown>>();
    for (const claim of report.nodeClaims) for (const pod of claim.pods as string[]) placement.set(pod, claim);
    expect([...placement.keys()].sort()).toEqual(
      [
        ...[0, 1, 2].map((i) => `shop/postgres-${i}`),
        ...[0, 1].map((i) => `ml/train-${i}`),
        ...[0, 1, 2, 3, 4, 5].map((i) => `shop/web-${i}`),
        ...[0, 1, 2, 3].map((i) => `shop/worker-${i}`),
      ].sort(),
    );
    // The GPU job goes to the tainted GPU pool, on demand; nothing else does.
    for (const [pod, claim] of placement) {
      expect(claim.nodePool, pod).toBe(pod.startsWith('ml/train') ? 'gpu' : 'general');
    }
    const gpuClaim = placement.get('ml/train-0')!;
    expect(gpuClaim.capacityType).toBe('on-demand');
    expect((gpuClaim.capacity as Record<string, string>)['nvidia.com/gpu']).toBe('1');
    expect(gpuClaim.taints).toEqual([{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }]);
    // The database replicas land in three distinct zones the StorageClass allows.
    const dbZones = [0, 1, 2].map((i) => placement.get(`shop/postgres-${i}`)!.zone as string);
    expect(new Set(dbZones).size).toBe(3);
    for (const z of dbZones) expect(['us-east-1a', 'us-east-1b', 'us-east-1c']).toContain(z);
    // The web tier is spread with a skew of at most one across the zones it uses.
    const webZones = new Map<string, number>();
    for (let i = 0; i < 6; i++) {
      const zone = placement.get(`shop/web-${i}`)!.zone as string;
      webZones.set(zone, (webZones.get(zone) ?? 0) + 1);
    }
    expect(Math.max(...webZones.values()) - Math.min(...webZones.values())).toBeLessThanOrEqual(1);
  });

  it('prints a table by default, the same for the same seed', async () => {
    const first = await run('-f', EXAMPLES);
    const second = await run('-f', EXAMPLES);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(second.stdout);
    const lines = first.stdout.split('\n');
    expect(lines[0]).toMatch(
      /^NODECLAIM\s+NODEPOOL\s+INSTANCE TYPE\s+CAPACITY\s+ZONE\s+ALLOC CPU\s+ALLOC MEM\s+\$\/HOUR\s+PODS$/,
    );
    expect(lines.filter((l) => /^(general|gpu)-[a-z0-9]{5}\s/.test(l))).toHaveLength(report.nodeClaims.length);
    expect(first.stdout).toMatch(
      /Summary: 15\/15 pods scheduled, \d+ new NodeClaim\(s\), ~\$\d+\.\d{4}\/h; LP lower bound/,
    );
    expect(first.stdout).not.toContain('embedded default');
  });

  it('marks the estimated spot prices in the table and the JSON, and only those', async () => {
    const { stdout } = await run('-f', EXAMPLES);
    const rows = stdout.split('\n').filter((l) => /^(general|gpu)-[a-z0-9]{5}\s/.test(l));
    for (const row of rows) {
      const price = row.split(/\s+/).at(-2) ?? '';
      expect(price.startsWith('~$'), row).toBe(row.includes(' spot '));
    }
    const spot = report.nodeClaims.filter((c) => c.capacityType === 'spot');
    expect(spot.length).toBeGreaterThan(0);
    expect(spot.every((c) => c.priceSource === 'estimate')).toBe(true);
    expect(report.nodeClaims.filter((c) => c.capacityType === 'on-demand').map((c) => c.priceSource)).toEqual(
      report.nodeClaims.filter((c) => c.capacityType === 'on-demand').map(() => 'catalog'),
    );
    expect(stdout).toContain(`~ marks ${spot.length} estimated price(s)`);
  });

  it('is deterministic for a seed; another seed changes only instance ids', async () => {
    const again = JSON.parse((await run('-f', EXAMPLES, '-o', 'json', '--seed', '1')).stdout) as Report;
    expect(again).toEqual(report);
    const other = JSON.parse((await run('-f', EXAMPLES, '-o', 'json', '--seed', '99')).stdout) as Report;
    const strip = (r: Report) => r.nodeClaims.map(({ instanceId: _i, providerID: _p, ...rest }) => rest);
    expect(strip(other)).toEqual(strip(report));
    expect(other.nodeClaims[0]?.instanceId).not.toBe(report.nodeClaims[0]?.instanceId);
  });
});

describe('karpless simulate inputs', () => {
  it('uses the embedded default NodePool when none is given, and says so', async () => {
    const file = yamlFile('app.yaml', deployment('api', 3));
    const json = await run('-f', file, '-o', 'json');
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as Report;
    expect(report.warnings.some((w) => w.includes('embedded default NodePool "default"'))).toBe(true);
    expect(report.summary.defaultNodePool).toBe('default');
    expect(json.stderr).toContain('embedded default NodePool');
    for (const claim of report.nodeClaims) {
      expect(claim.nodePool).toBe('default');
      expect(claim.arch).toBe('amd64');
      expect((claim.labels as Record<string, string>)['karpenter.k8s.aws/instance-category']).toMatch(/^[cmr]$/);
    }
    expect(report.summary.scheduledPods).toBe(3);
    const table = await run('-f', file);
    expect(table.stdout.split('\n')[0]).toBe('Using the embedded default NodePool "default" (no NodePool was given).');
  });

  it('prints progress on stderr for large inputs, keeping stdout to the report', async () => {
    const out = await run('-f', yamlFile('big.yaml', deployment('many', 1200)), '-o', 'json');
    expect(out.code).toBe(0);
    expect(out.stderr).toContain('loaded 1200 pods');
    expect(out.stderr).toMatch(/solving 1200 pending pods over 1 NodePool\(s\) and \d+ instance types/);
    expect(out.stderr).toMatch(/planned \d+ NodeClaim\(s\) in \d+ ms/);
    expect((JSON.parse(out.stdout) as Report).summary.scheduledPods).toBe(1200);
  });

  it('fills existing nodes first and reports them with their new pods', async () => {
    const node = `apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-0-1.ec2.internal
  labels:
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
    topology.kubernetes.io/zone: us-east-1a
    node.kubernetes.io/instance-type: m5.2xlarge
    karpenter.sh/capacity-type: on-demand
status:
  allocatable: { cpu: 7910m, memory: 29Gi, pods: "58" }
---
`;
    const running = `apiVersion: v1
kind: Pod
metadata: { name: running }
spec:
  nodeName: ip-10-0-0-1.ec2.internal
  containers: [{ name: app, resources: { requests: { cpu: '1', memory: 1Gi } } }]
---
`;
    const file = yamlFile('cluster.yaml', node + running + deployment('api', 2));
    const out = await run('-f', file, '-o', 'json');
    expect(out.code).toBe(0);
    const report = JSON.parse(out.stdout) as Report;
    expect(report.existingNodes).toEqual([
      { name: 'ip-10-0-0-1.ec2.internal', pods: ['default/api-0', 'default/api-1'], boundPods: ['default/running'] },
    ]);
    expect(report.nodeClaims).toEqual([]);
    expect(report.summary).toMatchObject({ pods: 2, scheduledPods: 2, nodeClaims: 0, costPerHour: 0 });
  });

  it('counts pods that fit a Ready node Karpenter does not manage as scheduled there, in JSON and in the table', async () => {
    // kube-scheduler places a pod nominated to a Ready node at once; the pods must not vanish from the report.
    const node = `apiVersion: v1
kind: Node
metadata:
  name: plain
  labels: { kubernetes.io/arch: amd64, kubernetes.io/os: linux, topology.kubernetes.io/zone: us-east-1a }
status:
  allocatable: { cpu: '2', memory: 8Gi, pods: '110' }
  conditions: [{ type: Ready, status: 'True' }]
---
`;
    const file = yamlFile('ready.yaml', node + deployment('web', 3));
    const out = await run('-f', file, '-o', 'json');
    expect(out.code).toBe(0);
    const report = JSON.parse(out.stdout) as Report;
    expect(report.existingNodes).toEqual([
      { name: 'plain', pods: ['default/web-0', 'default/web-1', 'default/web-2'], boundPods: [] },
    ]);
    expect(report.nodeClaims).toEqual([]);
    expect(report.unschedulable).toEqual([]);
    expect(report.summary).toMatchObject({ pods: 3, scheduledPods: 3, nodeClaims: 0 });
    const table = await run('-f', file);
    expect(table.stdout).toMatch(/NODE\s+RUNNING PODS\s+NEW PODS\nplain\s+0\s+3\n/);
    expect(table.stdout).toContain('Summary: 3/3 pods scheduled, 0 new NodeClaim(s)');
  });

  it('lists pods it cannot place with a reason, and still exits 0', async () => {
    const extra = `      nodeSelector:
        kubernetes.io/arch: s390x
`;
    const out = await run('-f', yamlFile('odd.yaml', deployment('odd', 1, extra)), '-o', 'json');
    expect(out.code).toBe(0);
    const report = JSON.parse(out.stdout) as Report;
    expect(report.unschedulable).toHaveLength(1);
    expect(report.unschedulable[0]?.pod).toBe('default/odd-0');
    expect(report.unschedulable[0]?.reason).toContain('default');
    expect(report.summary).toMatchObject({ pods: 1, scheduledPods: 0 });
  });

  it('exits 2 on invalid input, naming file, document, object and field, with nothing on stdout', async () => {
    const bad = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: broken
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }
      requirements:
        - key: karpenter.sh/capacity-type
          operator: Inn
          values: [spot]
`;
    const file = yamlFile('nodepool.yaml', bad);
    const out = await run('-f', file);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain(`${file}#1 NodePool/broken: spec.template.spec.requirements[0].operator`);
  });

  it('exits 2 for a missing path, a bad --output and a bad --seed', async () => {
    for (const argv of [
      ['-f', '/no/such/place'],
      ['-f', EXAMPLES, '--output', 'yaml'],
      ['-f', EXAMPLES, '--seed', 'abc'],
      [],
    ]) {
      const out = await run(...argv);
      expect(out.code, argv.join(' ')).toBe(2);
      expect(out.stdout, argv.join(' ')).toBe('');
      expect(out.stderr.length, argv.join(' ')).toBeGreaterThan(0);
    }
  });
});

describe('karpless simulate --time-budget', () => {
  // Each replica needs a node of its own, so the solve has work for every pod after its setup (which alone outlasts
  // a 1 ms budget): the first pod is placed, the rest are deferred.
  const spread = `${deployment(
    'spread',
    40,
    `      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            - labelSelector: { matchLabels: { app: spread } }
              topologyKey: kubernetes.io/hostname
`,
  )}`;

  it('lists the pods the budget left unplanned, and exits 0', async () => {
    const file = yamlFile('spread.yaml', spread);
    const { code, stdout } = await run('-f', file, '--time-budget', '1ms', '-o', 'json');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as Report & { deferred: { pod: string; reason: string }[] };
    expect(report.deferred.length).toBeGreaterThan(0);
    expect(new Set(report.deferred.map((d) => d.reason))).toEqual(new Set(['time budget']));
    const placed = report.nodeClaims.flatMap((c) => c.pods as string[]);
    expect(placed.length).toBeGreaterThan(0);
    // Every replica is either planned or deferred, exactly once.
    const all = [...placed, ...report.deferred.map((d) => d.pod)];
    expect(all).toHaveLength(40);
    expect(new Set(all).size).toBe(40);
    expect(report.unschedulable).toEqual([]);
  });

  it('says in the table how many pods were deferred', async () => {
    const file = yamlFile('spread.yaml', spread);
    const { code, stdout } = await run('-f', file, '--time-budget', '1ms');
    expect(code).toBe(0);
    expect(stdout).toMatch(/Deferred pods \(\d+\): the time budget ran out/);
  });

  it('plans everything and lists nothing deferred with an ample budget', async () => {
    const file = yamlFile('spread.yaml', spread);
    const { code, stdout } = await run('-f', file, '--time-budget', '10m', '-o', 'json');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as Report & { deferred: unknown[] };
    expect(report.deferred).toEqual([]);
    expect(report.nodeClaims).toHaveLength(40);
  });

  it('refuses a budget that is not a positive duration', async () => {
    const file = yamlFile('spread.yaml', spread);
    const { code, stderr } = await run('-f', file, '--time-budget', 'soon');
    expect(code).toBe(2);
    expect(stderr).toMatch(/--time-budget: "soon" is not a duration/);
  });
});

describe('karpless simulate with a static NodePool', () => {
  const nodeClass = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: { name: default }
spec:
  amiSelectorTerms: [{ alias: al2023@latest }]
  role: KarpenterNodeRole-demo
  subnetSelectorTerms: [{ tags: { karpenter.sh/discovery: demo } }]
  securityGroupSelectorTerms: [{ tags: { karpenter.sh/discovery: demo } }]
---
`;
  const staticPool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: fixed }
spec:
  replicas: 3
  template:
    spec:
      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }
      requirements:
        - { key: node.kubernetes.io/instance-type, operator: In, values: [m5.large] }
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
---
`;
  const dynamicPool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: general }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }
      requirements:
        - { key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r] }
---
`;

  it('reports the claims its replicas create beside the planned ones, in JSON and in the table', async () => {
    const file = yamlFile('static.yaml', nodeClass + staticPool + dynamicPool + deployment('web', 2));
    const json = await run('-f', file, '-o', 'json');
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as Report;
    const fixed = report.nodeClaims.filter((c) => c.nodePool === 'fixed');
    expect(fixed).toHaveLength(3);
    for (const c of fixed) {
      expect(c).toMatchObject({ instanceType: 'm5.large', capacityType: 'on-demand', pods: [] });
      expect(c.instanceTypeOptions).toEqual(['m5.large']);
    }
    // The pods still go to the dynamic pool: provisioning never plans pods onto a static pool's new nodes.
    const general = report.nodeClaims.filter((c) => c.nodePool === 'general');
    expect(general.flatMap((c) => c.pods as string[]).sort()).toEqual(['default/web-0', 'default/web-1']);
    const price = (c: Record<string, unknown>) => c.pricePerHour as number;
    const cost = report.nodeClaims.reduce((sum, c) => sum + price(c), 0);
    expect(report.summary).toMatchObject({ pods: 2, scheduledPods: 2, nodeClaims: fixed.length + general.length });
    expect(report.summary.costPerHour).toBeCloseTo(cost, 4);
    // Three m5.large at their on-demand price bound the static pool from below, on top of the pods' bound.
    expect(report.summary.lowerBoundPerHour).toBeGreaterThanOrEqual(3 * price(fixed[0] as Record<string, unknown>));

    const table = await run('-f', file);
    expect(table.code).toBe(0);
    const rows = table.stdout.split('\n').filter((l) => /^fixed-\S+\s+fixed\s+m5\.large\s+on-demand/.test(l));
    expect(rows).toHaveLength(3);
    expect(table.stdout).toContain(`${fixed.length + general.length} new NodeClaim(s)`);
  });

  it('reports them when no pod is pending at all', async () => {
    const out = await run('-f', yamlFile('static-only.yaml', nodeClass + staticPool), '-o', 'json');
    expect(out.code).toBe(0);
    const report = JSON.parse(out.stdout) as Report;
    expect(report.nodeClaims.map((c) => [c.nodePool, c.instanceType, c.pods])).toEqual([
      ['fixed', 'm5.large', []],
      ['fixed', 'm5.large', []],
      ['fixed', 'm5.large', []],
    ]);
    expect(report.summary).toMatchObject({ pods: 0, scheduledPods: 0, nodeClaims: 3 });
  });
});
