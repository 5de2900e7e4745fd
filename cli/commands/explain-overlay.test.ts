// `karpless explain` names the NodeOverlays behind the prices it shows: on the offering a claim was priced at and on
// the runner-up types the plan weighed against it (docs/api.md, "NodeOverlay").
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DecisionRecord } from '../../shared/api/nodeclaim';
import type { PlannedOffering } from '../../shared/scheduling/types';
import { SCENARIO_NODECLASS } from '../../testkit/manifests';
import { bufferIO } from '../io';
import { main } from '../main';

const dir = mkdtempSync(join(tmpdir(), 'karpless-explain-overlay-'));

const scenario = (overlays: string) => `apiVersion: karpless.dev/v1alpha1
kind: Scenario
metadata: { name: overlay-choice }
spec:
  until: 5m
  steps:
    - at: 0s
      manifests:
        - apiVersion: karpenter.sh/v1
          kind: NodePool
          metadata: { name: general }
          spec:
            template:
              spec:
                nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }
                requirements:
                  - { key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, c5.large] }
                  - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
                  - { key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a] }
${SCENARIO_NODECLASS}        - apiVersion: v1
          kind: Pod
          metadata: { name: web }
          spec: { containers: [{ name: app, image: app, resources: { requests: { cpu: "1", memory: 1Gi } } }] }
${overlays}`;

const OVERLAYS = `        - apiVersion: karpenter.sh/v1alpha1
          kind: NodeOverlay
          metadata: { name: m5-savings-plan }
          spec:
            weight: 10
            requirements: [{ key: node.kubernetes.io/instance-type, operator: In, values: [m5.large] }]
            price: "0.05"
            capacity: { example.com/fuse: "1" }
        - apiVersion: karpenter.sh/v1alpha1
          kind: NodeOverlay
          metadata: { name: c5-surcharge }
          spec:
            requirements: [{ key: node.kubernetes.io/instance-type, operator: In, values: [c5.large] }]
            priceAdjustment: "+100%"
`;

async function simulate(name: string, overlays: string) {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, scenario(overlays));
  const out = join(dir, `${name}-decisions.json`);
  expect(await main(['simulate', '--scenario', path, '--decisions-out', out], bufferIO())).toBe(0);
  const records = JSON.parse(readFileSync(out, 'utf8')) as DecisionRecord[];
  const provision = records.find((r) => r.kind === 'Provision');
  const claim = provision?.nodeClaims[0] as string;
  const explain = async (...args: string[]) => {
    const io = bufferIO();
    const code = await main(['explain', claim, '--store', out, ...args], io);
    return { code, stdout: io.stdout.join('') };
  };
  return { provision, explain };
}

describe('karpless explain: NodeOverlays', () => {
  it('names the overlay that priced the chosen type, and the overlays on the alternatives it beat', async () => {
    const { explain } = await simulate('with-overlays', OVERLAYS);
    const r = await explain();
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').map((l) => l.trim());
    // Without overlays c5.large is the cheaper type; the savings plan makes m5.large the choice.
    const priced = lines.findIndex((l) => l.startsWith('priced at m5.large on-demand in us-east-1a, $0.0500/h'));
    expect(priced).toBeGreaterThan(0);
    expect(lines[priced + 1]).toMatch(
      /^NodeOverlay m5-savings-plan \(weight 10, price: 0\.05\): \$0\.0960\/h -> \$0\.0500\/h$/,
    );
    expect(lines[priced + 2]).toBe('NodeOverlay m5-savings-plan (weight 10): capacity example.com/fuse 1');
    expect(lines[priced + 3]).toBe('instead of: c5.large on-demand in us-east-1a $0.1700/h');
    expect(lines[priced + 4]).toBe(
      'c5.large: NodeOverlay c5-surcharge (weight 0, priceAdjustment: +100%): $0.0850/h -> $0.1700/h',
    );
  });

  it('carries the overlays in the decision record and explain’s JSON', async () => {
    const { explain } = await simulate('json', OVERLAYS);
    const e = JSON.parse((await explain('-o', 'json')).stdout) as { records: DecisionRecord[] };
    const claims = e.records[0]?.detail.claims as { cheapest: PlannedOffering; alternatives: PlannedOffering[] }[];
    expect(claims[0]?.cheapest).toEqual({
      instanceType: 'm5.large',
      zone: 'us-east-1a',
      capacityType: 'on-demand',
      price: 0.05,
      overlay: { name: 'm5-savings-plan', weight: 10, adjustment: 'price: 0.05', basePrice: 0.096 },
      capacityOverlays: { 'example.com/fuse': { name: 'm5-savings-plan', weight: 10, quantity: '1' } },
    });
    expect(claims[0]?.alternatives.map((a) => [a.instanceType, a.overlay?.name])).toEqual([
      ['c5.large', 'c5-surcharge'],
    ]);
  });

  it('names no overlay when none applies, and picks the cheaper type on its own price', async () => {
    const { explain } = await simulate('without-overlays', '');
    const r = await explain();
    expect(r.stdout).toMatch(/priced at c5\.large on-demand in us-east-1a, \$0\.0850\/h/);
    expect(r.stdout).toMatch(/instead of: m5\.large on-demand in us-east-1a \$0\.0960\/h\n/);
    expect(r.stdout).not.toMatch(/NodeOverlay/);
  });
});

describe('karpless explain: a NodeOverlay behind a consolidation', () => {
  it('names the overlay that priced the replacement, and none once the overlay is deleted', async () => {
    const out = join(dir, 'node-overlay-decisions.json');
    const args = ['simulate', '--scenario', 'examples/scenarios/node-overlay.yaml', '--decisions-out', out];
    expect(await main(args, bufferIO())).toBe(0);
    const records = JSON.parse(readFileSync(out, 'utf8')) as DecisionRecord[];
    const explain = async (claim: string) => {
      const io = bufferIO();
      expect(await main(['explain', claim, '--store', out], io)).toBe(0);
      return io.stdout.join('');
    };
    const [toM5, back] = records.filter((r) => r.kind === 'Disrupt');
    const [c5, m5] = toM5?.nodeClaims ?? [];
    if (!c5 || !m5 || !back) throw new Error('expected two consolidations');
    // The c5.large went for an m5.large that the savings plan priced.
    expect(await explain(c5)).toMatch(
      new RegExp(
        `replacement: ${m5} m5\\.large on-demand in us-east-1a at \\$0\\.0400/h\\n\\s+${m5}: NodeOverlay m5-savings-plan \\(weight 0, price: 0\\.04\\): \\$0\\.0960/h -> \\$0\\.0400/h\\n`,
      ),
    );
    // Once the overlay was deleted, the m5.large cost its catalog price and went for a c5.large; no overlay is named.
    const m5Story = await explain(m5);
    const afterDelete = m5Story.slice(m5Story.lastIndexOf('Disrupt'));
    expect(afterDelete).toMatch(/replaced by c5\.large on-demand, saving \$0\.0110\/h/);
    expect(afterDelete).toMatch(/\(\$0\.0960\/h, 1 pod\(s\)\)/);
    expect(afterDelete).not.toMatch(/NodeOverlay/);
  }, 120_000);
});
