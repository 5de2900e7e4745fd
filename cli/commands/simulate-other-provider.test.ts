// `karpless simulate` with an EKS Auto Mode NodePool beside Karpless's own: like Karpenter, Karpless leaves a NodePool
// whose nodeClassRef names another provider's node class to its owner, with one line saying so, instead of refusing it
// (docs/deploy.md, "Other providers' NodePools").
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SimulateReport } from '../format/simulate-report';
import { bufferIO } from '../io';
import { main } from '../main';

const POOLS = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general-purpose}
spec:
  template:
    spec:
      nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass, name: default}
      requirements:
        - {key: eks.amazonaws.com/instance-category, operator: In, values: [c, m, r]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: batch}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c]}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  role: KarpenterNodeRole
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
`;

const pod = (name: string, selector?: Record<string, string>) => `---
apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: default}
spec:
  ${selector ? `nodeSelector: ${JSON.stringify(selector)}` : 'nodeSelector: {}'}
  containers: [{name: app, image: app, resources: {requests: {cpu: '1', memory: 1Gi}}}]
`;

function write(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'karpless-other-provider-'));
  const file = join(dir, 'cluster.yaml');
  writeFileSync(file, yaml);
  return file;
}

async function simulate(file: string): Promise<{ code: number; report: SimulateReport }> {
  const io = bufferIO();
  const code = await main(['simulate', '-f', file, '-o', 'json'], io);
  return { code, report: JSON.parse(io.stdout.join('')) as SimulateReport };
}

describe("karpless simulate beside another provider's NodePool", () => {
  it('plans only on its own pool, leaves pods only Auto Mode can serve to it, and says so once', async () => {
    const file = write(`${POOLS}${pod('web')}${pod('auto', { 'eks.amazonaws.com/compute-type': 'auto' })}`);
    const { code, report } = await simulate(file);
    expect(code).toBe(0);
    expect(report.nodeClaims.map((c) => [c.nodePool, c.pods])).toEqual([['batch', ['default/web']]]);
    expect(report.unschedulable).toEqual([]);
    const lines = report.warnings.filter((w) => w.includes('general-purpose'));
    expect(lines).toEqual([
      `${file}#1 NodePool/general-purpose: spec.template.spec.nodeClassRef: NodePool general-purpose uses eks.amazonaws.com/NodeClass, another provider's node class: left to its owner`,
      '1 pending pod(s) only NodePool(s) general-purpose of another provider could serve: left to their owner',
    ]);
  });

  it('with only Auto Mode pools plans nothing, and uses no default pool in their place', async () => {
    const only = POOLS.split('---\n')[0] ?? '';
    const { code, report } = await simulate(
      write(`${only}${pod('auto', { 'eks.amazonaws.com/compute-type': 'auto' })}`),
    );
    expect(code).toBe(0);
    expect(report.nodeClaims).toEqual([]);
    expect(report.warnings.some((w) => w.includes('embedded default NodePool'))).toBe(false);
  });

  it('still refuses a mistyped group of its own (a version, or a near miss), naming the field', async () => {
    for (const group of ['karpenter.k8s.aws/v1', 'karpenter.k8s.aw']) {
      const io = bufferIO();
      const file = write(POOLS.replace('group: karpenter.k8s.aws,', `group: ${group},`));
      expect(await main(['simulate', '-f', file], io)).toBe(2);
      expect(io.stderr.join('')).toContain(
        `${file}#2 NodePool/batch: spec.template.spec.nodeClassRef.group: "${group}" is not supported: use karpenter.k8s.aws`,
      );
    }
  });
});
