// DaemonSet overhead from DaemonSet pods (docs/simulate-dump.md, "DaemonSets from their pods"), through the real
// command: a dump with aws-node and kube-proxy pods but no DaemonSet objects still charges new nodes their overhead.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SimulateReport } from '../format/simulate-report';
import { bufferIO } from '../io';
import { main } from '../main';

const FIXTURE = join(import.meta.dirname, '../../test/fixtures/daemonset-pods');

async function simulate(...argv: string[]) {
  const io = bufferIO();
  const code = await main(['simulate', ...argv], io);
  return { code, stdout: io.stdout.join(''), stderr: io.stderr.join('') };
}

const mebibytes = (q: string | undefined): number => {
  const m = /^(\d+)(Mi|Gi)$/.exec(q ?? '');
  if (!m) throw new Error(`not a Mi or Gi quantity: ${q}`);
  return Number(m[1]) * (m[2] === 'Gi' ? 1024 : 1);
};

describe('karpless simulate on a dump without its DaemonSets', () => {
  it('derives aws-node and kube-proxy from their pods and keeps 3072Mi off a 3114Mi c5a.large', async () => {
    const { code, stdout } = await simulate(
      '-f',
      join(FIXTURE, 'dump.yaml'),
      '-f',
      join(FIXTURE, 'app.yaml'),
      '-o',
      'json',
    );
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as SimulateReport;
    expect(report.unschedulable).toEqual([]);
    for (const claim of report.nodeClaims) {
      expect(claim.instanceType).toBe('c5a.large');
      expect(claim.daemonSetOverhead).toEqual({ cpu: '125m', memory: '128Mi', pods: '2' });
      // Pods and DaemonSets together stay within what the node offers.
      const used = mebibytes(claim.requests.memory) + mebibytes(claim.daemonSetOverhead.memory);
      expect(used).toBeLessThanOrEqual(mebibytes(claim.allocatable.memory));
    }
    expect(report.nodeClaims.map((c) => c.pods.length).sort()).toEqual([1, 2]);
    expect(report.warnings).toContain(
      'DaemonSets not in the input, derived from their newest pod (requests, tolerations, node selector and ' +
        'affinity) for the overhead of new nodes: kube-system/aws-node (1 pod), kube-system/kube-proxy (1 pod); ' +
        'add daemonsets to the dump to read them',
    );
  });

  it('reads a DaemonSet the input gives instead of deriving it', async () => {
    const kubeProxy = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: kube-proxy, namespace: kube-system}
spec:
  selector: {matchLabels: {k8s-app: kube-proxy}}
  template:
    metadata: {labels: {k8s-app: kube-proxy}}
    spec:
      tolerations: [{operator: Exists}]
      containers: [{name: kube-proxy, resources: {requests: {cpu: 100m, memory: 32Mi}}}]
`;
    const io = bufferIO(`${readFileSync(join(FIXTURE, 'app.yaml'), 'utf8')}\n---\n${kubeProxy}`);
    const code = await main(['simulate', '-f', join(FIXTURE, 'dump.yaml'), '-f', '-', '-o', 'json'], io);
    expect(code).toBe(0);
    const report = JSON.parse(io.stdout.join('')) as SimulateReport;
    expect(report.nodeClaims[0]?.daemonSetOverhead).toEqual({ cpu: '125m', memory: '96Mi', pods: '2' });
    expect(report.warnings).toContainEqual(expect.stringContaining('new nodes: kube-system/aws-node (1 pod); add'));
  });
});
