// The NodeOverlay examples of karpenter.sh's NodeOverlays page (concepts/nodeoverlays.md), unchanged
// (test/fixtures/karpenter-examples/README.md), with examples/v1/general-purpose.yaml as the NodePool they act on:
// extended capacity lets pods schedule that could not, the conflict example prices and sizes m5.large exactly as
// the page's "Result for m5.large" says (explain names each overlay), the g6f example makes fractional-GPU pods
// schedulable, and the two blocks Karpenter's CRD rejects are rejected here with its messages.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../../shared/catalog';
import {
  docsExample,
  example,
  loadSimulator,
  podsYaml,
  scratch,
  simulateFiles,
  simulateScenario,
} from '../../../testkit/karpenter-examples';

const write = scratch('examples-overlays');
const overlay = (name: string) => docsExample(`concepts/nodeoverlays/${name}`);
const GENERAL_PURPOSE = example('examples/v1/general-purpose.yaml');
const m5LargeOnDemand = loadCatalog().types.find((t) => t.name === 'm5.large')?.onDemandPrice ?? 0;

beforeAll(loadSimulator);

describe('karpenter.sh NodeOverlays page, unchanged', () => {
  it('custom-devices: m5.large/xlarge/2xlarge gain smarter-devices/fuse, so a pod asking for one schedules there', async () => {
    const pods = write(
      'fuse.yaml',
      podsYaml([{ name: 'fuse', requests: { cpu: '1', memory: '1Gi' }, limits: { 'smarter-devices/fuse': '1' } }]),
    );
    const without = await simulateFiles([GENERAL_PURPOSE, pods]);
    expect(without.out?.unschedulable.map((u) => u.reason)).toEqual([
      expect.stringContaining('no instance type has enough smarter-devices/fuse'),
    ]);
    const withOverlay = await simulateFiles([GENERAL_PURPOSE, overlay('custom-devices'), pods]);
    expect(withOverlay.code, withOverlay.stderr).toBe(0);
    const [claim] = withOverlay.out?.nodeClaims ?? [];
    expect(withOverlay.out?.unschedulable).toEqual([]);
    expect(['m5.large', 'm5.xlarge', 'm5.2xlarge']).toContain(claim?.instanceType);
    for (const t of claim?.instanceTypeOptions ?? []) expect(['m5.large', 'm5.xlarge', 'm5.2xlarge']).toContain(t);
  });

  it('conflict-resolution: m5.large is priced -20% by overlay-b and has both overlays’ capacity, as explain shows', async () => {
    const pods = write(
      'device.yaml',
      podsYaml([
        {
          name: 'device',
          requests: { cpu: '1', memory: '1Gi' },
          limits: { memory: '1Gi', 'hugepages-2Mi': '50Mi', 'custom-device/gpu': '1' },
        },
      ]),
    );
    const scenario = write(
      'conflict.yaml',
      `apiVersion: karpless.dev/v1alpha1
kind: Scenario
metadata: { name: overlay-conflict }
spec:
  until: 2m
  steps:
    - at: 0s
      apply: [${JSON.stringify(GENERAL_PURPOSE)}, ${JSON.stringify(overlay('conflict-resolution'))}, ${JSON.stringify(pods)}]
`,
    );
    const run = await simulateScenario(scenario);
    expect(run.code, run.stderr).toBe(0);
    const [claim] = run.out?.nodeClaims ?? [];
    expect(claim?.instanceType).toBe('m5.large');
    expect(claim?.pricePerHour).toBeCloseTo(m5LargeOnDemand * 0.8, 6);
    const text = await run.explain(claim?.name ?? '');
    expect(text).toContain(
      `NodeOverlay overlay-b (weight 10, priceAdjustment: -20%): $${m5LargeOnDemand.toFixed(4)}/h -> $${(m5LargeOnDemand * 0.8).toFixed(4)}/h`,
    );
    expect(text).toContain('NodeOverlay overlay-b (weight 10): capacity custom-device/gpu 1');
    expect(text).toContain('NodeOverlay overlay-a (weight 5): capacity hugepages-2Mi 50Mi');
    expect(text).not.toContain('priceAdjustment: -10%');
  });

  it('g6f-fractional-gpu + fractional-gpu NodePool: a pod asking for nvidia.com/gpu schedules on g6f only with the overlay', async () => {
    // The embedded snapshot has the g6f types as Karpenter lists them: a GPU count of 0 (a fraction of an L4), so no
    // nvidia.com/gpu capacity, which is why the page needs the overlay.
    const g6f = loadCatalog().types.find((t) => t.name === 'g6f.xlarge');
    expect(g6f?.gpu).toMatchObject({ count: 0, name: 'l4' });
    // The page's NodePool names an EC2NodeClass it does not show; the test supplies one.
    const rest = write(
      'gpu.yaml',
      `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: { name: gpu-nodeclass }
spec:
  role: KarpenterNodeRole-test
  amiSelectorTerms: [{ alias: al2023@latest }]
  subnetSelectorTerms: [{ tags: { karpenter.sh/discovery: test } }]
  securityGroupSelectorTerms: [{ tags: { karpenter.sh/discovery: test } }]
---
${podsYaml([{ name: 'inference', requests: { cpu: '1', memory: '1Gi' }, limits: { 'nvidia.com/gpu': '1' } }])}`,
    );
    const pool = overlay('fractional-gpu-nodepool');
    const without = await simulateFiles([pool, rest]);
    expect(without.out?.unschedulable.map((u) => u.reason)).toEqual([
      expect.stringContaining('no instance type has enough nvidia.com/gpu'),
    ]);
    const withOverlay = await simulateFiles([pool, overlay('g6f-fractional-gpu'), rest]);
    expect(withOverlay.code, withOverlay.stderr).toBe(0);
    expect(withOverlay.out?.unschedulable).toEqual([]);
    expect(withOverlay.out?.nodeClaims.map((c) => [c.nodePool, c.instanceType, c.capacity['nvidia.com/gpu']])).toEqual([
      ['fractional-gpu', 'g6f.large', '1'],
    ]);
  });

  it("example-overlay: rejected, as Karpenter's CRD rejects price with priceAdjustment", async () => {
    const r = await simulateFiles([GENERAL_PURPOSE, overlay('example-overlay')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "example-overlay.yaml#1 NodeOverlay/example-overlay: spec: cannot set both 'price' and 'priceAdjustment'",
    );
  });

  it("preview-instance-pricing: rejected, as Karpenter's CRD rejects an In requirement without values (the page's template is to be filled in)", async () => {
    const r = await simulateFiles([GENERAL_PURPOSE, overlay('preview-instance-pricing')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'preview-instance-pricing.yaml#1 NodeOverlay/preview-instance-pricing: spec.requirements[0].values: must have at least one value for operator In',
    );
  });
});
