// `karpless simulate` on the cluster dump of docs/simulate-dump.md, through the real command: the plan fills the
// in-flight capacity first and launches only what nothing in flight can hold.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SimulateReport } from '../format/simulate-report';
import { bufferIO } from '../io';
import { main } from '../main';

const FIXTURE = join(import.meta.dirname, '../../test/fixtures/cluster-dump');

async function simulate(...argv: string[]): Promise<{ code: number; report: SimulateReport; stderr: string }> {
  const io = bufferIO();
  const code = await main(['simulate', '-f', FIXTURE, '-o', 'json', ...argv], io);
  return { code, report: JSON.parse(io.stdout.join('')) as SimulateReport, stderr: io.stderr.join('') };
}

describe('karpless simulate on a cluster dump', () => {
  it('plans onto in-flight capacity first and launches one node for the pod nothing in flight can hold', async () => {
    const { code, report } = await simulate();
    expect(code).toBe(0);
    const byName = new Map(report.existingNodes.map((n) => [n.name, n]));
    // The registering m5.2xlarge (not-ready and startup taints ignored while in flight) takes the api pods.
    expect(byName.get('ip-10-0-3-30.ec2.internal')).toMatchObject({ inflight: true });
    expect(byName.get('ip-10-0-3-30.ec2.internal')?.pods).toHaveLength(3);
    // The launched NodeClaim with no Node yet, in us-east-1b, takes the pod whose volume lives there.
    expect(byName.get('default-m4wzx')).toEqual({
      name: 'default-m4wzx',
      pods: ['shop/db-0'],
      boundPods: [],
      inflight: true,
    });
    // Bound pods count on their nodes; the Succeeded one does not.
    expect(byName.get('ip-10-0-2-20.ec2.internal')?.boundPods).toEqual([
      'kube-system/aws-node-b',
      'shop/web-6c9d-1',
      'shop/web-6c9d-0',
    ]);
    // Only batch-1 (3 CPU, us-east-1a) needs a new node.
    expect(report.nodeClaims.map((c) => [c.instanceType, c.zone, c.pods])).toEqual([
      ['m5.xlarge', 'us-east-1a', ['shop/batch-1']],
    ]);
    expect(report.summary).toMatchObject({ pods: 6, scheduledPods: 6, nodeClaims: 1 });
    expect(report.unschedulable).toEqual([]);
    expect(report.warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining(
          'not provisioned for: terminating (metadata.deletionTimestamp is set): shop/api-5f7b-0',
        ),
        expect.stringMatching(/has not marked it unschedulable.*shop\/api-5f7b-4/),
        expect.stringContaining('NodeClaim/default-q9tlv: status.providerID is empty'),
      ]),
    );
  });

  it('takes the operator settings as flags and refuses values Karpenter does not know', async () => {
    const ok = await simulate('--min-values-policy', 'BestEffort', '--preference-policy', 'Ignore');
    expect(ok.code).toBe(0);
    const io = bufferIO();
    const code = await main(['simulate', '-f', FIXTURE, '--preference-policy', 'Maybe'], io);
    expect(code).toBe(2);
    expect(io.stderr.join('')).toContain('--preference-policy: "Maybe" is not one of Respect, Ignore');
  });
});
