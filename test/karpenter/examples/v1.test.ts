// Every NodePool/EC2NodeClass example of aws/karpenter-provider-aws `examples/v1/`, unchanged
// (test/fixtures/karpenter-examples/README.md), through `karpless simulate -f` with a small workload: the pods land
// on the example's pool, on nodes whose labels meet its requirements, and each example's own point shows (its limit,
// its minValues, spot, the architectures, the Windows builds, the storage it configures). The one example Karpenter's
// API server rejects is rejected here for the same reason.
import { readdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SimulateReport } from '../../../cli/format/simulate-report';
import { parseManifests } from '../../../shared/api/parse';
import { parseQuantity } from '../../../shared/api/quantity';
import { Requirements } from '../../../shared/scheduling/requirements';
import {
  type ExamplePod,
  example,
  exampleText,
  loadSimulator,
  podsYaml,
  scratch,
  simulateFiles,
} from '../../../testkit/karpenter-examples';

const write = scratch('examples-v1');
const V1 = readdirSync(example('examples/v1')).filter((f) => f.endsWith('.yaml'));
/** The examples Karpenter's CRDs reject, with the field the rejection names (see the test for each). */
const REJECTED = ['windows-custom-userdata.yaml'];

const run = (file: string, pods: ExamplePod[]) =>
  simulateFiles([example(`examples/v1/${file}`), write(`${file}-pods.yaml`, podsYaml(pods))]);

function planned(out: SimulateReport | undefined): SimulateReport {
  if (!out) throw new Error('simulate failed');
  return out;
}

/** Each claim's node labels meet every requirement of the pool that made it. */
function expectPoolRequirementsMet(file: string, report: SimulateReport): void {
  const pools = parseManifests(exampleText(example(`examples/v1/${file}`)), file).nodePools;
  for (const claim of report.nodeClaims) {
    const pool = pools.find((p) => p.metadata.name === claim.nodePool);
    expect(pool, `${claim.name}'s pool ${claim.nodePool}`).toBeDefined();
    const unmet = Requirements.from(pool?.spec.template.spec.requirements).firstUnmatchedLabel(claim.labels);
    expect(unmet?.toString(), `${claim.name} (${claim.instanceType})`).toBeUndefined();
  }
}

const gib = (q: string | undefined) => parseQuantity(q ?? '0') / 2 ** 30;

beforeAll(loadSimulator);

describe('aws/karpenter-provider-aws examples/v1, unchanged', () => {
  it('covers every file of the folder', () => {
    expect(V1.length).toBe(22);
  });

  it.each(V1.filter((f) => !REJECTED.includes(f) && !f.startsWith('windows-')))(
    '%s: a Linux pod lands on the example pool, on a node that meets its requirements',
    async (file) => {
      const r = await run(file, [{ name: 'web', count: 3, requests: { cpu: '1', memory: '2Gi' } }]);
      expect(r.code, r.stderr).toBe(0);
      const report = planned(r.out);
      expect(report.unschedulable).toEqual([]);
      expect(report.summary.scheduledPods).toBe(3);
      expect(report.nodeClaims.length).toBeGreaterThan(0);
      for (const c of report.nodeClaims) expect(c.labels['kubernetes.io/os']).toBe('linux');
      expectPoolRequirementsMet(file, report);
    },
  );

  it('100-cpu-limit.yaml: launches no more than 100 vCPUs and leaves the rest pending on the limit', async () => {
    const r = await run('100-cpu-limit.yaml', [{ name: 'batch', count: 30, requests: { cpu: '4', memory: '4Gi' } }]);
    const report = planned(r.out);
    const vcpus = report.nodeClaims.reduce((sum, c) => sum + parseQuantity(c.capacity.cpu ?? '0'), 0);
    expect(vcpus).toBeLessThanOrEqual(100);
    expect(vcpus).toBeGreaterThan(50);
    expect(report.unschedulable.length).toBeGreaterThan(0);
    for (const u of report.unschedulable) expect(u.reason).toMatch(/limit/);
  });

  it('spot.yaml: launches spot capacity', async () => {
    const report = planned((await run('spot.yaml', [{ name: 'web', count: 2 }])).out);
    expect(report.nodeClaims.map((c) => c.capacityType)).toEqual(report.nodeClaims.map(() => 'spot'));
  });

  it('large-instances.yaml: no node under 4 vCPUs or 8 GiB, even for a small pod', async () => {
    const report = planned(
      (await run('large-instances.yaml', [{ name: 'tiny', requests: { cpu: '100m', memory: '128Mi' } }])).out,
    );
    const [claim] = report.nodeClaims;
    expect(Number(claim?.labels['karpenter.k8s.aws/instance-cpu'])).toBeGreaterThanOrEqual(4);
    expect(Number(claim?.labels['karpenter.k8s.aws/instance-memory'])).toBeGreaterThanOrEqual(8192);
  });

  it('min-values-family.yaml: every claim keeps at least 5 instance families to choose from', async () => {
    const report = planned((await run('min-values-family.yaml', [{ name: 'web', count: 2 }])).out);
    for (const c of report.nodeClaims) {
      const families = new Set(c.instanceTypeOptions.map((t) => t.split('.')[0]));
      expect(families.size).toBeGreaterThanOrEqual(5);
    }
  });

  it('min-values-multiple-keys.yaml: at least 2 categories, 5 families and 2 types per claim', async () => {
    const report = planned((await run('min-values-multiple-keys.yaml', [{ name: 'web', count: 2 }])).out);
    for (const c of report.nodeClaims) {
      const families = new Set(c.instanceTypeOptions.map((t) => t.split('.')[0]));
      const categories = new Set([...families].map((f) => f?.charAt(0)));
      expect(categories.size).toBeGreaterThanOrEqual(2);
      expect(families.size).toBeGreaterThanOrEqual(5);
      expect(c.instanceTypeOptions.length).toBeGreaterThanOrEqual(2);
    }
  });

  it('multiple-arch.yaml: an arm64 pod goes to the arm64 pool and an amd64 pod to the amd64 pool', async () => {
    const report = planned(
      (
        await run('multiple-arch.yaml', [
          { name: 'graviton', nodeSelector: { 'kubernetes.io/arch': 'arm64' } },
          { name: 'intel', nodeSelector: { 'kubernetes.io/arch': 'amd64' } },
        ])
      ).out,
    );
    const poolOf = (pod: string) => report.nodeClaims.find((c) => c.pods.includes(`default/${pod}`));
    expect([poolOf('graviton')?.nodePool, poolOf('graviton')?.arch]).toEqual(['arm64', 'arm64']);
    expect([poolOf('intel')?.nodePool, poolOf('intel')?.arch]).toEqual(['amd64', 'amd64']);
  });

  it('instance-store-ephemeral-storage.yaml: RAID0 instance store makes room for a 250Gi ephemeral-storage pod', async () => {
    const pod = { name: 'scratch', requests: { cpu: '1', memory: '2Gi', 'ephemeral-storage': '250Gi' } };
    const report = planned((await run('instance-store-ephemeral-storage.yaml', [pod])).out);
    const [claim] = report.nodeClaims;
    expect(report.unschedulable).toEqual([]);
    expect(Number(claim?.labels['karpenter.k8s.aws/instance-local-nvme'])).toBeGreaterThan(300);
    // The label counts GB, as EC2's TotalSizeInGB does; capacity is that many 10^9 bytes.
    const nvmeGb = Number(claim?.labels['karpenter.k8s.aws/instance-local-nvme']);
    expect(parseQuantity(claim?.capacity['ephemeral-storage'] ?? '0')).toBe(nvmeGb * 1e9);
    // The same pod on an example with the default 20Gi root volume has nowhere to go.
    const elsewhere = planned((await run('general-purpose.yaml', [pod])).out);
    expect(elsewhere.unschedulable.map((u) => u.pod)).toEqual(['default/scratch']);
  });

  it('multiple-ebs.yaml: ephemeral-storage is the 20Gi root volume (/dev/xvda), not the other volumes', async () => {
    const report = planned((await run('multiple-ebs.yaml', [{ name: 'web' }])).out);
    expect(gib(report.nodeClaims[0]?.capacity['ephemeral-storage'])).toBe(20);
  });

  it('windows-2019/2022/2025.yaml together: each build pod lands on its own pool, a Windows node of that build', async () => {
    const builds = { windows2019: '10.0.17763', windows2022: '10.0.20348', windows2025: '10.0.26100' };
    const pods = Object.entries(builds).map(([pool, build]) => ({
      name: pool,
      nodeSelector: { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': build },
    }));
    const files = ['windows-2019.yaml', 'windows-2022.yaml', 'windows-2025.yaml'].map((f) =>
      example(`examples/v1/${f}`),
    );
    const r = await simulateFiles([...files, write('windows-pods.yaml', podsYaml(pods))]);
    expect(r.code, r.stderr).toBe(0);
    const report = planned(r.out);
    expect(report.unschedulable).toEqual([]);
    for (const [pool, build] of Object.entries(builds)) {
      const claim = report.nodeClaims.find((c) => c.pods.includes(`default/${pool}`));
      expect(claim?.nodePool).toBe(pool);
      expect(claim?.labels['kubernetes.io/os']).toBe('windows');
      expect(claim?.labels['node.kubernetes.io/windows-build']).toBe(build);
      expect(claim?.capacityType).toBe('on-demand');
    }
    // A pod that asks for Linux has no pool among them.
    const linuxPod = podsYaml([{ name: 'linux', nodeSelector: { 'kubernetes.io/os': 'linux' } }]);
    const linux = await simulateFiles([...files, write('linux-pod.yaml', linuxPod)]);
    expect(planned(linux.out).unschedulable.map((u) => u.pod)).toEqual(['default/linux']);
  });

  it("windows-custom-userdata.yaml: rejected, as Karpenter's CRD rejects nodeClassRef.group karpenter.k8s.aws/v1 (pattern ^[^/]*$)", async () => {
    const r = await run('windows-custom-userdata.yaml', [{ name: 'web' }]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'windows-custom-userdata.yaml#1 NodePool/windows2022: spec.template.spec.nodeClassRef.group: "karpenter.k8s.aws/v1" is not supported: use karpenter.k8s.aws',
    );
  });
});
