// Layered inputs (docs/simulate-dump.md, "Layered inputs"), through the real command: a later -f replaces the
// NodePools, EC2NodeClasses and NodeOverlays of an earlier one by name and says so; Pods and Nodes never layer.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SimulateReport } from '../format/simulate-report';
import { bufferIO } from '../io';
import { main } from '../main';

const FIXTURE = join(import.meta.dirname, '../../test/fixtures/cluster-dump');
const DUMP = join(FIXTURE, 'dump.yaml');
const POOLS = join(FIXTURE, 'nodepools.yaml');

function yamlFile(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'karpless-layered-')), name);
  writeFileSync(path, text);
  return path;
}

/** The fixture's NodePool with other instance types: what a what-if edits. */
const cheaperPool = (types: string) => `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      startupTaints: [{key: example.com/agent-not-ready, effect: NoSchedule}]
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [${types}]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
`;

async function simulate(...argv: string[]) {
  const io = bufferIO();
  const code = await main(['simulate', ...argv], io);
  return { code, stdout: io.stdout.join(''), stderr: io.stderr.join('') };
}

describe('karpless simulate with layered inputs', () => {
  it('lets a later -f replace a NodePool of the same name, and names the replacement in JSON', async () => {
    const whatIf = yamlFile('nodepool.yaml', cheaperPool('c5.xlarge'));
    const { code, stdout, stderr } = await simulate('-f', DUMP, '-f', POOLS, '-f', whatIf, '-o', 'json');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as SimulateReport;
    // The fixture's pool would launch an m5.xlarge for batch-1; the what-if's pool offers only c5.xlarge.
    expect(report.nodeClaims.map((c) => [c.instanceType, c.pods])).toEqual([['c5.xlarge', ['shop/batch-1']]]);
    expect(report.replaced).toEqual([{ kind: 'NodePool', name: 'default', replaced: `${POOLS}#1`, by: `${whatIf}#1` }]);
  });

  it('runs the dump command of the docs: a dump that lists its NodePool, and the edited file after it', async () => {
    // `kubectl get ... nodepools,ec2nodeclasses` puts the cluster's own pool and class in the dump.
    const dump = yamlFile('dump.yaml', `${readFileSync(DUMP, 'utf8')}\n---\n${readFileSync(POOLS, 'utf8')}`);
    const whatIf = yamlFile('nodepool.yaml', cheaperPool('c5.xlarge'));
    const { code, stdout } = await simulate('-f', dump, '-f', whatIf);
    expect(code).toBe(0);
    expect(stdout).toContain(`Replaced by a later -f (1):\n  NodePool default: ${dump}#2 replaced by ${whatIf}#1`);
    expect(stdout).toMatch(/c5\.xlarge/);
  });

  it('takes the later input whatever order the inputs are read in (standard input first)', async () => {
    const io = bufferIO(cheaperPool('c5.xlarge'));
    const code = await main(['simulate', '-f', DUMP, '-f', POOLS, '-f', '-', '-o', 'json'], io);
    expect(code).toBe(0);
    const report = JSON.parse(io.stdout.join('')) as SimulateReport;
    expect(report.nodeClaims.map((c) => c.instanceType)).toEqual(['c5.xlarge']);
    expect(report.replaced).toEqual([{ kind: 'NodePool', name: 'default', replaced: `${POOLS}#1`, by: '<stdin>#1' }]);

    const before = bufferIO(cheaperPool('c5.xlarge'));
    expect(await main(['simulate', '-f', '-', '-f', DUMP, '-f', POOLS, '-o', 'json'], before)).toBe(0);
    const kept = JSON.parse(before.stdout.join('')) as SimulateReport;
    expect(kept.nodeClaims.map((c) => c.instanceType)).toEqual(['m5.xlarge']);
    expect(kept.replaced).toEqual([{ kind: 'NodePool', name: 'default', replaced: '<stdin>#1', by: `${POOLS}#1` }]);
  });

  it('keeps duplicates within one input, and duplicate Pods and Nodes across inputs, errors', async () => {
    const twice = yamlFile('twice.yaml', `${cheaperPool('c5.xlarge')}---\n${cheaperPool('c5.2xlarge')}`);
    const one = await simulate('-f', twice);
    expect(one.code).toBe(2);
    expect(one.stderr).toContain(`${twice}#2 NodePool/default: metadata.name: duplicate NodePool "default"`);

    const pod = yamlFile(
      'pod.yaml',
      'apiVersion: v1\nkind: Pod\nmetadata: {name: batch-1, namespace: shop}\nspec: {containers: [{name: a}]}\n',
    );
    const pods = await simulate('-f', DUMP, '-f', POOLS, '-f', pod);
    expect(pods.code).toBe(2);
    expect(pods.stderr).toContain(`${pod}#1 Pod/batch-1: metadata.name: duplicate Pod "batch-1"`);
  });
});
