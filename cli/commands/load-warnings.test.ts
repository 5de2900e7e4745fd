// Load-time warnings of `karpless simulate -f` (shared/sim/load-warnings.ts): each shows in the JSON `warnings`
// and in the table's Warnings section, and the examples raise none of them.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { regionOfZone } from '../../shared/sim/load-warnings';
import { bufferIO } from '../io';
import { main } from '../main';

const CLASS = (name: string, alias = 'al2023@latest') => `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: { name: ${name} }
spec:
  role: KarpenterNodeRole-demo
  amiSelectorTerms: [{ alias: ${alias} }]
  subnetSelectorTerms: [{ tags: { karpenter.sh/discovery: demo } }]
  securityGroupSelectorTerms: [{ tags: { karpenter.sh/discovery: demo } }]
`;

const POOL = (name: string, requirements: string, labels = '{}', nodeClass = 'default') => `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: ${name} }
spec:
  template:
    metadata: { labels: ${labels} }
    spec:
      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: ${nodeClass} }
      requirements: ${requirements}
`;

const FINE = POOL('fine', '[{ key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }]');

const DEPLOY = (resources: string, extra = '') => `apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: default }
spec:
  replicas: 4
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      ${extra}
      containers: [{ name: web, image: nginx, resources: ${resources} }]
`;

const REQUESTS = '{ requests: { cpu: 500m, memory: 512Mi } }';

async function simulate(...docs: string[]) {
  const text = docs.join('---\n');
  const json = bufferIO(text);
  const table = bufferIO(text);
  const code = await main(['simulate', '-f', '-', '-o', 'json'], json);
  await main(['simulate', '-f', '-'], table);
  const report = JSON.parse(json.stdout.join(''));
  return { code, report, warnings: report.warnings as string[], table: table.stdout.join('') };
}

describe('load-time warnings', () => {
  it('names a NodePool whose template label its own requirement excludes', async () => {
    const out = await simulate(
      CLASS('default'),
      POOL('team', '[{ key: team, operator: In, values: [b] }]', '{ team: a }'),
      FINE,
      DEPLOY(REQUESTS),
    );
    const expected =
      'NodePool/team: spec.template.metadata.labels["team"] is "a", but spec.template.spec.requirements[0] ' +
      '(team In [b]) excludes it, and every node of the pool carries its template labels: this NodePool can ' +
      'never launch a node';
    expect(out.warnings).toEqual([expected]);
    expect(out.table).toContain(`Warnings:\n  ${expected}`);
  });

  it('names requirements on one key that allow no common value', async () => {
    const out = await simulate(
      CLASS('default'),
      POOL('clash', '[{ key: team, operator: In, values: [a] }, { key: team, operator: NotIn, values: [a] }]'),
      FINE,
      DEPLOY(REQUESTS),
    );
    expect(out.warnings).toEqual([
      'NodePool/clash: spec.template.spec.requirements[0] (team In [a]) and spec.template.spec.requirements[1] ' +
        '(team NotIn [a]) allow no common value: this NodePool can never launch a node',
    ]);
  });

  it('names a NodePool no instance type or offering can serve, with the reason', async () => {
    const out = await simulate(
      CLASS('default'),
      POOL(
        'tiny',
        `[{ key: node.kubernetes.io/instance-type, operator: In, values: [m5.large] },
          { key: karpenter.k8s.aws/instance-family, operator: In, values: [c6g] }]`,
      ),
      POOL('nozone', '[{ key: topology.kubernetes.io/zone, operator: In, values: [us-east-1z] }]'),
      FINE,
      DEPLOY(REQUESTS),
    );
    const embedded = 'the embedded catalog (1345 types, us-east-1, snapshot 2026-07-20)';
    const refresh =
      'if AWS offers one, build a current catalog with `karpless catalog refresh --region us-east-1` and pass ' +
      '`--catalog catalog-us-east-1.json`';
    expect(out.warnings).toEqual([
      `NodePool/tiny: no instance type in ${embedded} meets its requirements (no instance type meets ` +
        'all of node.kubernetes.io/instance-type [m5.large], karpenter.k8s.aws/instance-family [c6g]); ' +
        refresh,
      `NodePool/nozone: no instance type in ${embedded} meets its requirements ` +
        '(topology.kubernetes.io/zone [us-east-1z] matches no offering (offered: us-east-1a, us-east-1b, ' +
        `us-east-1c, us-east-1d, us-east-1e, us-east-1f)); ${refresh}`,
    ]);
  });

  it('says nothing of a NodePool that asks for 8th-generation x86 types, which the catalog has', async () => {
    const out = await simulate(
      CLASS('default'),
      POOL(
        'gen8',
        `[{ key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["7"] },
          { key: kubernetes.io/arch, operator: In, values: [amd64] }]`,
      ),
      FINE,
      DEPLOY(REQUESTS),
    );
    expect(out.warnings).toEqual([]);
  });

  it("names an OS its EC2NodeClass's nodes do not run, and says nothing of a Windows pool the catalog prices", async () => {
    const out = await simulate(
      CLASS('default'),
      CLASS('win', 'windows2022@latest'),
      POOL('winos', '[{ key: kubernetes.io/os, operator: In, values: [windows] }]'),
      POOL('linuxonwin', '[{ key: kubernetes.io/os, operator: In, values: [linux] }]', '{}', 'win'),
      POOL('winami', '[]', '{}', 'win'),
      FINE,
      DEPLOY(REQUESTS),
    );
    expect(out.warnings).toEqual([
      'NodePool/winos: spec.template.spec.requirements[0] (kubernetes.io/os In [windows]): its EC2NodeClass ' +
        'default runs AL2023 AMIs, whose nodes are linux: this NodePool can never launch a node',
      'NodePool/linuxonwin: spec.template.spec.requirements[0] (kubernetes.io/os In [linux]): its EC2NodeClass ' +
        'win runs Windows2022 AMIs, whose nodes are windows: this NodePool can never launch a node',
    ]);
  });

  it("names zones outside the catalog's region with the catalog refresh + --catalog hint", async () => {
    const out = await simulate(
      CLASS('default'),
      POOL('eu', '[{ key: topology.kubernetes.io/zone, operator: In, values: [eu-west-1a, eu-west-1b] }]'),
      POOL('mixed', '[{ key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a, eu-west-1c] }]'),
      DEPLOY(REQUESTS, 'nodeSelector: { topology.kubernetes.io/zone: eu-west-1a }'),
    );
    const hint =
      'the catalog offers us-east-1a, us-east-1b, us-east-1c, us-east-1d, us-east-1e, us-east-1f; build one for ' +
      'eu-west-1 with `karpless catalog refresh --region eu-west-1` (writes catalog-eu-west-1.json) and pass ' +
      '`--catalog catalog-eu-west-1.json`';
    expect(out.warnings).toEqual([
      `NodePool/eu: topology.kubernetes.io/zone eu-west-1a, eu-west-1b are all outside the catalog's region us-east-1: this NodePool can never launch a node; ${hint}`,
      `NodePool/mixed: topology.kubernetes.io/zone eu-west-1c include zones outside the catalog's region us-east-1; ${hint}`,
      `4 pod(s) (default/web-0, default/web-1, default/web-2 and 1 more) select topology.kubernetes.io/zone eu-west-1a, outside the catalog's region us-east-1; ${hint}`,
    ]);
    expect(out.report.unschedulable).toHaveLength(4);
  });

  it('explains what the bound ratio means when pods request nothing', async () => {
    const out = await simulate(CLASS('default'), FINE, DEPLOY('{}'));
    expect(out.warnings).toEqual([
      '4 of 4 pod(s) request no CPU or memory (default/web-0, default/web-1, default/web-2 and 1 more): they are ' +
        'packed by pod count alone, and the LP lower bound counts only requested resources, so the bound and the ' +
        '"× the bound" ratio measure pods per node, not how well CPU and memory are packed; set ' +
        'resources.requests to plan for what they use',
    ]);
    expect(out.report.summary.podsWithoutRequests).toBe(4);
    expect(out.table).toMatch(
      /× the bound; 4 pod\(s\) request no CPU or memory, so the bound counts only their pod slots\)\.\n/,
    );
    const limitsOnly = await simulate(CLASS('default'), FINE, DEPLOY('{ limits: { cpu: "1" } }'));
    expect(limitsOnly.warnings).toEqual([]);
    expect(limitsOnly.report.summary.podsWithoutRequests).toBeUndefined();
  });

  it('raises none of them for the bundled examples', async () => {
    const io = bufferIO();
    await main(['simulate', '-f', join(import.meta.dirname, '..', '..', 'examples', 'cluster'), '-o', 'json'], io);
    expect(JSON.parse(io.stdout.join('')).warnings).toEqual([]);
  });

  it('reads the region of a zone, Local Zones included', () => {
    expect(regionOfZone('eu-west-1a')).toBe('eu-west-1');
    expect(regionOfZone('us-gov-west-1b')).toBe('us-gov-west-1');
    expect(regionOfZone('us-east-1-bos-1a')).toBe('us-east-1');
    expect(regionOfZone('zone-a')).toBeUndefined();
  });
});
