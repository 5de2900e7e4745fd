// Karpenter's Windows cases, translated: aws/karpenter-provider-aws pkg/providers/instancetype/suite_test.go (pods
// and kube-reserved per AMI family), pkg/providers/launchtemplate/suite_test.go "Windows Custom UserData",
// pkg/providers/amifamily/suite_test.go (Windows aliases), pkg/apis/v1/ec2nodeclass_validation_cel_test.go (the
// windows aliases) and instancetype/types.go's kubernetes.io/os and windows-build requirements. Each test names the
// case it mirrors; Karpless adds the licence to Windows prices (docs/catalog.md, Windows).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bufferIO } from '../../../cli/io';
import { main } from '../../../cli/main';
import type { EC2NodeClass } from '../../../shared/api/karpenter';
import { LabelOS, LabelWindowsBuild } from '../../../shared/api/labels';
import { parseManifests } from '../../../shared/api/parse';
import { formatResourceList } from '../../../shared/api/resources';
import { aliasParameter, discoverAmis, parseAlias } from '../../../shared/aws/ec2/amis';
import { userDataFor } from '../../../shared/aws/ec2/userdata';
import { instanceTypesFor, loadCatalog } from '../../../shared/catalog';
import { WINDOWS_LICENSE_PER_VCPU_HOUR } from '../../../shared/catalog/build/windows';
import type { InstanceType } from '../../../shared/catalog/types';
import { catalogEngine } from '../../../shared/sim/default-engine';
import { runSimulation } from '../../../shared/sim/simulation';
import { ec2NodeClass, nodePool, pod, pods } from '../../../testkit/builders';
import {
  allClaims,
  apply,
  deployment,
  disrupted,
  MINUTE,
  run,
  scale,
  scenario,
  nodeClass as scenarioNodeClass,
  nodePool as scenarioPool,
  step,
} from '../../../testkit/karpenter';
import { VALID_NODECLASS } from '../../../testkit/manifests';

const catalog = loadCatalog();
const windowsClass = (version: '2019' | '2022' | '2025', spec: Partial<EC2NodeClass['spec']> = {}) =>
  ec2NodeClass({ amiSelectorTerms: [{ alias: `windows${version}@latest` }], ...spec }, `windows${version}`);
const typeOf = (nodeClass: EC2NodeClass | undefined, name: string): InstanceType => {
  const found = instanceTypesFor(catalog, nodeClass).find((t) => t.name === name);
  if (!found) throw new Error(`${name} is not in the view`);
  return found;
};
const windowsPool = (version: '2019' | '2022' | '2025') =>
  nodePool({
    name: `windows${version}`,
    nodeClass: `windows${version}`,
    requirements: [
      { key: LabelOS, operator: 'In', values: ['windows'] },
      { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
    ],
  });
const linuxPool = () =>
  nodePool({ name: 'linux', requirements: [{ key: LabelOS, operator: 'In', values: ['linux'] }] });
const windowsPod = (build?: string, cpu = '1') =>
  pod({ cpu, nodeSelector: { [LabelOS]: 'windows', ...(build ? { [LabelWindowsBuild]: build } : {}) } });

const IT = 'instancetype/suite_test.go InstanceTypeProvider Pods';
describe(IT, () => {
  it.each(['2019', '2022', '2025'] as const)(
    'should reserve ENIs when aws.reservedENIs is set and use it in max-pods calculation: windows%s (latest) keeps 110 pods, 1465Mi',
    (version) => {
      const t3 = typeOf(windowsClass(version), 't3.large');
      expect(t3.capacity.pods).toBe(110);
      expect(formatResourceList(t3.overhead.kubeReserved).memory).toBe('1465Mi'); // 11 * 110 + 255
      // Linux on the same type stays ENI-limited: 3 ENIs x (12 - 1) + 2.
      expect(typeOf(ec2NodeClass(), 't3.large').capacity.pods).toBe(35);
    },
  );

  it.each(['2019', '2022', '2025'] as const)(
    'should set max-pods to user-defined value if specified: windows%s (latest) with maxPods 10 reserves 365Mi',
    (version) => {
      const t3 = typeOf(windowsClass(version, { kubelet: { maxPods: 10 } }), 't3.large');
      expect(t3.capacity.pods).toBe(10);
      expect(formatResourceList(t3.overhead.kubeReserved).memory).toBe('365Mi'); // 11 * 10 + 255
    },
  );

  it('should cap max-pods by podsPerCore on Windows (PodsPerCoreEnabled)', () => {
    expect(typeOf(windowsClass('2022', { kubelet: { podsPerCore: 4 } }), 'm5.large').capacity.pods).toBe(8);
  });

  it('NewInstanceType: a Windows node has vpc.amazonaws.com/PrivateIPv4Address = IPv4 per ENI - 1; Linux has none', () => {
    const m5 = typeOf(windowsClass('2022'), 'm5.large');
    expect(m5.capacity['vpc.amazonaws.com/PrivateIPv4Address']).toBe(m5.info.ipv4PerEni - 1);
    expect(m5.capacity['vpc.amazonaws.com/PrivateIPv4Address']).toBe(9);
    expect(typeOf(ec2NodeClass(), 'm5.large').capacity['vpc.amazonaws.com/PrivateIPv4Address']).toBeUndefined();
  });
});

describe('instancetype/types.go computeRequirements: kubernetes.io/os and node.kubernetes.io/windows-build', () => {
  it.each([
    ['2019', '10.0.17763'],
    ['2022', '10.0.20348'],
    ['2025', '10.0.26100'],
  ] as const)('labels windows%s types windows with build %s', (version, build) => {
    const m5 = typeOf(windowsClass(version), 'm5.large');
    expect(m5.labels[LabelOS]).toBe('windows');
    expect(m5.labels[LabelWindowsBuild]).toBe(build);
  });

  it('gives Linux types no windows-build label (DoesNotExist)', () => {
    const m5 = typeOf(ec2NodeClass(), 'm5.large');
    expect(m5.labels[LabelOS]).toBe('linux');
    expect(m5.labels[LabelWindowsBuild]).toBeUndefined();
  });

  it('getOS: Windows only on amd64, so no Graviton type is offered to a Windows node class', () => {
    const view = instanceTypesFor(catalog, windowsClass('2022'));
    expect(view.length).toBeGreaterThan(400);
    expect(view.every((t) => t.info.arch === 'amd64')).toBe(true);
    expect(instanceTypesFor(catalog, ec2NodeClass()).some((t) => t.info.arch === 'arm64')).toBe(true);
  });

  it('prices Windows offerings with the licence: Linux + $0.046 per vCPU-hour, on demand and on spot', () => {
    const win = typeOf(windowsClass('2022'), 'm5.xlarge');
    const linux = typeOf(ec2NodeClass(), 'm5.xlarge');
    const licence = WINDOWS_LICENSE_PER_VCPU_HOUR * 4;
    const od = (t: InstanceType) => t.offerings.find((o) => o.capacityType === 'on-demand')?.price ?? 0;
    expect(od(win)).toBeCloseTo(od(linux) + licence, 6);
    expect(od(win)).toBeCloseTo(0.376, 6); // AWS's published m5.xlarge Windows on-demand price in us-east-1
    for (const o of win.offerings.filter((x) => x.capacityType === 'spot')) {
      const l = linux.offerings.find((x) => x.capacityType === 'spot' && x.zone === o.zone);
      expect(o.price).toBeCloseTo((l?.price ?? 0) + licence, 4);
    }
  });
});

describe('launchtemplate/suite_test.go LaunchTemplate Provider Windows Custom UserData', () => {
  const cluster = {
    name: 'test-cluster',
    region: 'us-east-1',
    endpoint: 'https://test-cluster',
    caData: 'Y2EtYnVuZGxlCg==',
    serviceCidr: '10.0.100.0/24',
    kubernetesVersion: '1.31',
  };
  const input = {
    cluster,
    labels: { 'karpenter.sh/capacity-type': 'spot', 'karpenter.sh/nodepool': 'windows', 'testing/cluster': 'x' },
    taints: [{ key: 'karpenter.sh/unregistered', effect: 'NoExecute' as const }],
    kubelet: { maxPods: 110, clusterDNS: ['10.0.100.10'] },
  };
  const bootstrap =
    `[string]$EKSBootstrapScriptFile = "$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1"\n` +
    `& $EKSBootstrapScriptFile -EKSClusterName 'test-cluster' -APIServerEndpoint 'https://test-cluster' ` +
    `-Base64ClusterCA 'Y2EtYnVuZGxlCg==' -KubeletExtraArgs '--node-labels="karpenter.sh/capacity-type=spot,` +
    `karpenter.sh/nodepool=windows,testing/cluster=x" --register-with-taints="karpenter.sh/unregistered:NoExecute" ` +
    `--max-pods=110' -DNSClusterIP '10.0.100.10'`;

  it('should bootstrap when custom user data is empty', () => {
    expect(userDataFor('Windows2022', input)).toBe(`<powershell>\n${bootstrap}\n</powershell>`);
  });

  it('should merge and bootstrap with custom user data', () => {
    const custom =
      'Write-Host "Running custom user data script"\nWrite-Host "Finished running custom user data script"\n';
    expect(userDataFor('Windows2022', { ...input, customUserData: custom })).toBe(
      `<powershell>\n${custom.trim()}\n${bootstrap}\n</powershell>`,
    );
    // A script that brings its own tags is not nested inside ours.
    const tagged = userDataFor('Windows2025', { ...input, customUserData: `<powershell>\n${custom}</powershell>\n` });
    expect(tagged.match(/<powershell>/g)).toHaveLength(1);
  });

  it('passes the kubelet settings Karpenter maps to flags, sorted, and quotes PowerShell strings', () => {
    const out = userDataFor('Windows2019', {
      ...input,
      labels: { team: "o'brien" },
      kubelet: { kubeReserved: { memory: '1Gi', cpu: '200m' }, evictionHard: { 'memory.available': '5%' } },
      maxPods: 110,
    });
    expect(out).toContain(
      `-KubeletExtraArgs '--node-labels="team=o''brien" --register-with-taints="karpenter.sh/unregistered:NoExecute" ` +
        `--max-pods=110 --kube-reserved="cpu=200m,memory=1Gi" --eviction-hard="memory.available<5%"'`,
    );
    expect(out).not.toContain('-DNSClusterIP');
  });
});

describe('amifamily/suite_test.go AMIProvider', () => {
  it.each(['2019', '2022', '2025'] as const)('should succeed to resolve AMIs (Windows%s)', (version) => {
    const alias = parseAlias(`windows${version}@latest`);
    expect(aliasParameter(alias, '1.35', 'amd64')).toBe(
      `/aws/service/ami-windows-latest/Windows_Server-${version}-English-Core-EKS_Optimized-1.35/image_id`,
    );
    expect(aliasParameter(alias, '1.35', 'arm64')).toBeUndefined();
    expect(aliasParameter(alias, '1.35', 'amd64', 'nvidia')).toBeUndefined();
  });

  it('should fail to resolve AMIs for Windows2025 when EKS version is below 1.35', async () => {
    // No client is reached: the version check comes first.
    const never = {} as Parameters<typeof discoverAmis>[0];
    await expect(discoverAmis(never, {} as never, [{ alias: 'windows2025@latest' }], '1.34')).rejects.toThrow(
      'amiSelectorTerms alias "windows2025@latest": Windows Server 2025 requires EKS version 1.35 or higher, current version: 1.34',
    );
  });

  it('refuses a pinned Windows version', () => {
    expect(() => parseAlias('windows2022@v20240101')).toThrow('Windows families support only the version latest');
  });
});

describe('ec2nodeclass_validation_cel_test.go AMISelectorTerms alias', () => {
  it.each([
    ['windows2019', 'Windows2019'],
    ['windows2022', 'Windows2022'],
    ['windows2025', 'Windows2025'],
  ])('should succeed for a valid alias family: %s (latest), with /dev/sda1 50Gi', (alias, family) => {
    const set = parseManifests(VALID_NODECLASS.replace('al2023@latest', `${alias}@latest`), 'w.yaml');
    expect(set.nodeClasses[0]?.spec.amiFamily).toBe(family);
    expect(set.nodeClasses[0]?.spec.blockDeviceMappings).toEqual([
      { deviceName: '/dev/sda1', ebs: { volumeSize: '50Gi', volumeType: 'gp3', encrypted: true } },
    ]);
  });
});

describe('Windows pods on Windows pools (suite_test.go "Windows Custom UserData" pods, priced with the licence)', () => {
  const engine = catalogEngine(catalog);
  const nodeClasses = [ec2NodeClass(), windowsClass('2019'), windowsClass('2022')];

  it('schedules a Windows pod (os windows, windows-build 10.0.20348) on the Windows 2022 pool at the Windows price', async () => {
    const p = windowsPod('10.0.20348');
    const r = await runSimulation(
      { pods: [p], nodePools: [linuxPool(), windowsPool('2019'), windowsPool('2022')], nodeClasses },
      engine,
    );
    expect(r.unschedulable).toEqual([]);
    const claim = r.nodeClaims[0];
    expect(claim?.plan.nodePool).toBe('windows2022');
    expect(claim?.instanceType.labels[LabelOS]).toBe('windows');
    const info = claim?.instanceType.info;
    const zone = claim?.instance.zone ?? '';
    const windowsPrice =
      claim?.instance.capacityType === 'spot' ? info?.windows?.spotPrice[zone] : info?.windows?.onDemandPrice;
    expect(claim?.instance.pricePerHour).toBe(windowsPrice);
    const linuxPrice = claim?.instance.capacityType === 'spot' ? info?.spotPrice[zone] : info?.onDemandPrice;
    expect(claim?.instance.pricePerHour).toBeGreaterThan(linuxPrice ?? Infinity);
  });

  it('schedules a Windows Server 2019 pod on the 2019 pool, never on 2022 nodes', async () => {
    const r = await runSimulation(
      { pods: [windowsPod('10.0.17763')], nodePools: [windowsPool('2022'), windowsPool('2019')], nodeClasses },
      engine,
    );
    expect(r.nodeClaims.map((c) => c.plan.nodePool)).toEqual(['windows2019']);
  });

  it('never puts a Linux pod on a Windows node, and leaves it pending with only a Windows pool', async () => {
    const linux = pod({ cpu: '1', nodeSelector: { [LabelOS]: 'linux' } });
    const both = await runSimulation(
      { pods: [linux, windowsPod('10.0.20348')], nodePools: [windowsPool('2022'), linuxPool()], nodeClasses },
      engine,
    );
    const pools = Object.fromEntries(both.nodeClaims.map((c) => [c.plan.pods[0]?.metadata.name, c.plan.nodePool]));
    expect(pools[linux.metadata.name]).toBe('linux');
    const onlyWindows = await runSimulation({ pods: [linux], nodePools: [windowsPool('2022')], nodeClasses }, engine);
    expect(onlyWindows.nodeClaims).toEqual([]);
    expect(onlyWindows.unschedulable.map((u) => u.pod.metadata.name)).toEqual([linux.metadata.name]);
  });

  it('leaves a Windows pod pending when only Linux pools exist', async () => {
    const r = await runSimulation({ pods: [windowsPod()], nodePools: [linuxPool()], nodeClasses }, engine);
    expect(r.nodeClaims).toEqual([]);
    expect(r.unschedulable).toHaveLength(1);
  });

  it("should not launch instance type for vpc.amazonaws.com/PrivateIPv4Address if VPC resource controller doesn't advertise it (Karpless: every Windows type advertises IPv4 per ENI - 1)", () => {
    // Karpenter reads the capacity from the VPC resource controller's limits table, so a type missing there has
    // none; Karpless derives it from DescribeInstanceTypes, so every Windows type in the catalog has some.
    const view = instanceTypesFor(catalog, windowsClass('2022'));
    expect(view.length).toBeGreaterThan(100);
    for (const t of view) {
      expect(t.capacity['vpc.amazonaws.com/PrivateIPv4Address']).toBe(t.info.ipv4PerEni - 1);
      expect(t.info.ipv4PerEni - 1).toBeGreaterThan(0);
    }
  });

  it('should launch vpc.amazonaws.com/PrivateIPv4Address on a compatible instance type: no more such pods on a node than its primary ENI has secondary IPs', async () => {
    const ipPods = pods(12, {
      cpu: '10m',
      requests: { 'vpc.amazonaws.com/PrivateIPv4Address': 1 },
      nodeSelector: { [LabelOS]: 'windows' },
    });
    const pool = nodePool({
      name: 'windows2022',
      nodeClass: 'windows2022',
      requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large'] }],
    });
    const r = await runSimulation({ pods: ipPods, nodePools: [pool], nodeClasses }, engine);
    // m5.large: 10 IPv4 per ENI, one of them the node's own: 9 pods per node, so 12 pods need two nodes.
    expect(r.unschedulable).toEqual([]);
    expect(r.nodeClaims.map((c) => c.plan.pods.length).sort()).toEqual([3, 9]);
  });
});

describe('examples/v1/windows-2019.yaml, windows-2022.yaml and windows-2025.yaml, unchanged, through simulate', () => {
  it('schedules every Windows pod on the NodePool of its build, at Windows prices', async () => {
    const io = bufferIO();
    const dir = join(import.meta.dirname, '../../../examples/windows');
    const code = await main(['simulate', '-f', dir, '--output', 'json'], io);
    expect(code).toBe(0);
    const out = JSON.parse(io.stdout.join('')) as {
      summary: { pods: number; scheduledPods: number };
      nodeClaims: { nodePool: string; instanceType: string; pods: string[]; pricePerHour: number }[];
    };
    expect(out.summary).toMatchObject({ pods: 8, scheduledPods: 8 });
    const poolOf = (prefix: string) =>
      new Set(out.nodeClaims.filter((c) => c.pods.some((p) => p.includes(prefix))).map((c) => c.nodePool));
    expect(poolOf('iis-2022')).toEqual(new Set(['windows2022']));
    expect(poolOf('legacy-2019')).toEqual(new Set(['windows2019']));
    expect(poolOf('api-2025')).toEqual(new Set(['windows2025']));
    for (const c of out.nodeClaims) {
      const info = catalog.types.find((t) => t.name === c.instanceType);
      expect(c.pricePerHour).toBe(info?.windows?.onDemandPrice);
    }
  });
});

describe('a pod that selects no OS, with a Linux and a Windows pool of equal weight', () => {
  it('goes to the Linux pool, the cheaper once the Windows licence is priced', async () => {
    const free = pod({ cpu: '1' });
    const r = await runSimulation(
      {
        pods: [free],
        nodePools: [windowsPool('2022'), nodePool({ name: 'linux' })],
        nodeClasses: [ec2NodeClass(), windowsClass('2022')],
      },
      catalogEngine(catalog),
    );
    expect(r.nodeClaims.map((c) => c.plan.nodePool)).toEqual(['linux']);
  });
});

describe('a pod with spec.os.name: windows and no kubernetes.io/os selector', () => {
  it('is placed as if it named no OS, as Karpenter does (neither it nor kube-scheduler reads spec.os)', async () => {
    const set = parseManifests(
      `apiVersion: v1
kind: Pod
metadata: { name: os-only, namespace: default }
spec:
  os: { name: windows }
  containers: [{ name: app, image: app, resources: { requests: { cpu: "1" } } }]
`,
      'pod.yaml',
    );
    const r = await runSimulation(
      {
        pods: set.pods,
        nodePools: [windowsPool('2022'), nodePool({ name: 'linux' })],
        nodeClasses: [ec2NodeClass(), windowsClass('2022')],
      },
      catalogEngine(catalog),
    );
    // The cheaper Linux pool: on a real cluster its kubelet would refuse the pod, so select the OS as well.
    expect(r.nodeClaims.map((c) => c.plan.nodePool)).toEqual(['linux']);
  });
});

describe('Windows nodes over time (karpless simulate --scenario)', () => {
  const windowsDeployment = (replicas: number) => {
    const d = deployment('iis', replicas, { cpu: '1500m', memory: '2Gi' }) as {
      spec: { template: { spec: Record<string, unknown> } };
    };
    d.spec.template.spec.nodeSelector = { [LabelOS]: 'windows' };
    return d as unknown as Record<string, unknown>;
  };
  const winNodeClass = (version: string) => ({
    ...scenarioNodeClass({ amiSelectorTerms: [{ alias: `windows${version}@latest` }] }),
    metadata: { name: 'windows' },
  });
  const winPool = () => {
    const p = scenarioPool({ name: 'windows', types: ['m5.large', 'm5.xlarge'] }) as {
      spec: { template: { spec: { nodeClassRef: { name: string } } } };
    };
    p.spec.template.spec.nodeClassRef.name = 'windows';
    return p as unknown as Record<string, unknown>;
  };

  it('launches Windows Server 2019 nodes, consolidates them after a scale-down, and replaces them with 2022 nodes when the class changes', async () => {
    const r = await run(
      scenario(60 * MINUTE, [
        step(0, apply(winNodeClass('2019'), winPool(), windowsDeployment(4))),
        step(10 * MINUTE, scale('iis', 1)),
        step(25 * MINUTE, {
          type: 'patch',
          target: { kind: 'EC2NodeClass', namespace: '', name: 'windows' },
          mergePatch: { spec: { amiSelectorTerms: [{ alias: 'windows2022@latest' }] } },
        }),
      ]),
    );
    const claims = await allClaims(r);
    expect(claims.length).toBeGreaterThan(1);
    // Every node came from the Windows pool and class; the drifted ones (Windows Server 2019) are gone.
    expect(new Set(claims.map((c) => `${c.nodePool}/${c.nodeClass}`))).toEqual(new Set(['windows/windows']));
    const drifted = new Set(disrupted(r, 'Drifted').map((e) => e.nodeClaim));
    for (const c of claims.filter((x) => drifted.has(x.name))) expect(c.state).toBe('Terminated');
    expect(disrupted(r, 'Underutilized').length + disrupted(r, 'Empty').length).toBeGreaterThan(0);
    expect(disrupted(r, 'Drifted').length).toBeGreaterThan(0);
    const nodes = await r.world.cluster.listNodes();
    expect(nodes.length).toBeGreaterThan(0);
    for (const n of nodes) {
      expect(n.metadata.labels?.[LabelOS]).toBe('windows');
      expect(n.metadata.labels?.[LabelWindowsBuild]).toBe('10.0.20348');
    }
    expect(await r.world.cluster.listPendingPods()).toEqual([]);
  });
});
