// What `karpless simulate` prints for people (docs/simulate-dump.md, "Reading the report"), through the real
// command: pending pods grouped by owner and reason in natural order, "optimal (proven)" with the bound explained,
// and allocatable CPU and memory side by side.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SimulateReport } from '../format/simulate-report';
import { bufferIO } from '../io';
import { main } from '../main';

const ROOT = join(import.meta.dirname, '../..');
const LIMITED = join(ROOT, 'test/fixtures/readable-output/limited.yaml');

async function simulate(...argv: string[]) {
  const io = bufferIO();
  const code = await main(['simulate', ...argv], io);
  return { code, stdout: io.stdout.join(''), stderr: io.stderr.join('') };
}

describe('karpless simulate output for people', () => {
  it('prints the pods a limit leaves pending as one line per owner and reason, names in natural order', async () => {
    const json = await simulate('-f', LIMITED, '-o', 'json');
    const report = JSON.parse(json.stdout) as SimulateReport;
    const pending = report.unschedulable.length;
    expect(pending).toBeGreaterThan(40);
    const reason = report.unschedulable[0]?.reason ?? '';
    expect(reason).toContain('limits would be exceeded');
    expect(report.pendingGroups).toEqual([
      {
        owner: 'default/app',
        replicas: 150,
        reason,
        pods: [...report.unschedulable.map((u) => u.pod)].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })),
      },
    ]);
    const names = report.pendingGroups?.[0]?.pods ?? [];
    // Natural order: a shorter number sorts first when the names share a prefix.
    for (let i = 1; i < names.length; i++) {
      const [a, b] = [names[i - 1], names[i]].map((p) => Number(p?.split('-').at(-1)));
      expect(a).toBeLessThan(b as number);
    }

    const text = await simulate('-f', LIMITED);
    expect(text.code).toBe(0);
    const shown = names.slice(0, 5).map((p) => p.slice('default/'.length));
    expect(text.stdout).toContain(
      `Unschedulable pods (${pending}):\n  default/app (150 replicas): ${pending} pending — ${reason}\n` +
        `    ${shown.join(', ')} and ${pending - 5} more\n`,
    );
    expect(text.stdout.match(/^ {2}default\/app-\d+: /gm)).toBeNull();
  });

  it('says "optimal (proven)" when the exact packing proves the plan, and what the bound is', async () => {
    const { code, stdout } = await simulate('-f', join(ROOT, 'examples/scenarios/manifests/web.yaml'));
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /Summary: 40\/40 pods scheduled, \d+ new NodeClaim\(s\), ~?\$\d+\.\d{4}\/h: optimal \(proven\); LP lower bound/,
    );
    expect(stdout).toContain(
      '\nBound: the cost if pods could be split across nodes at the best price per unit of what they request; ' +
        'whole pods on whole nodes cost more, so a plan can be optimal above it.\n',
    );
    const json = JSON.parse(
      (await simulate('-f', join(ROOT, 'examples/scenarios/manifests/web.yaml'), '-o', 'json')).stdout,
    );
    expect((json as SimulateReport).summary.packing?.provenOptimal).toBe(true);
  });

  it('shows allocatable CPU and memory together, as the JSON report has them', async () => {
    const dir = join(ROOT, 'test/fixtures/daemonset-pods');
    const text = await simulate('-f', dir);
    const json = JSON.parse((await simulate('-f', dir, '-o', 'json')).stdout) as SimulateReport;
    const claim = json.nodeClaims[0];
    expect(claim?.allocatable).toMatchObject({ cpu: '1930m', memory: '3114Mi' });
    expect(text.stdout).toMatch(/ALLOC CPU\s+ALLOC MEM/);
    expect(text.stdout).toMatch(new RegExp(`^${claim?.name}\\s.*\\s1930m\\s+3114Mi\\s`, 'm'));
  });
});
