// `karpless explain NAME -f PATH...` through the real command (docs/simulate-dump.md, "Explaining a plan"): a
// NodeClaim simulate -f plans is explained from its Provision record, as a deployed one is, and a pod the plan
// leaves pending is explained by its reason.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SimulateReport } from '../format/simulate-report';
import { bufferIO } from '../io';
import { main } from '../main';

const FIXTURES = join(import.meta.dirname, '../../test/fixtures');

async function run(...argv: string[]) {
  const io = bufferIO();
  const code = await main(argv, io);
  return { code, stdout: io.stdout.join(''), stderr: io.stderr.join('') };
}

describe('karpless explain on a simulate -f plan', () => {
  it('explains a planned NodeClaim from the Provision record the plan wrote', async () => {
    const dir = join(FIXTURES, 'daemonset-pods');
    const plan = JSON.parse((await run('simulate', '-f', dir, '-o', 'json')).stdout) as SimulateReport;
    const claim = plan.nodeClaims.find((c) => c.pods.length === 2);
    if (!claim) throw new Error('the plan has no claim of two pods');
    const { code, stdout } = await run('explain', claim.name, '-f', dir);
    expect(code).toBe(0);
    expect(stdout).toContain(`NodeClaim ${claim.name}: 1 decision(s)`);
    expect(stdout).toContain(`now: Launched since `);
    expect(stdout).toMatch(
      / {2}Provision {2}3 pod\(s\) to place: 2 new NodeClaim\(s\) at \$0\.1540\/h, 0 unschedulable/,
    );
    expect(stdout).toContain(`    for 2 pod(s): ${claim.pods.join(', ')}`);
    // The DaemonSets derived from their pods are in the requests the record names.
    expect(stdout).toContain('    requests (DaemonSets included): cpu 325m, memory 2176Mi, pods 4');
  });

  it('explains a pod the plan leaves pending by its reason, in text and JSON', async () => {
    const file = join(FIXTURES, 'readable-output/limited.yaml');
    const plan = JSON.parse((await run('simulate', '-f', file, '-o', 'json')).stdout) as SimulateReport;
    const first = plan.unschedulable[0];
    if (!first) throw new Error('the plan leaves no pod pending');
    const name = first.pod.slice('default/'.length);
    const text = await run('explain', name, '-f', file);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(`Pod ${first.pod}: pending in this plan: ${first.reason}\n`);
    const json = await run('explain', first.pod, '-f', file, '-o', 'json');
    expect(JSON.parse(json.stdout)).toEqual({ pod: first.pod, reason: first.reason, pending: true });
  });

  it('says so when the plan has no such name, and takes -f as one source among the others', async () => {
    const dir = join(FIXTURES, 'daemonset-pods');
    const missing = await run('explain', 'no-such-claim', '-f', dir);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no decision records for no-such-claim');
    const both = await run('explain', 'x', '-f', dir, '--store', 'records.json');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain(
      'give exactly one of --table TABLE (with --cluster), --store FILE, --from-sim SCENARIO or -f PATH',
    );
  });
});
