// `karpless migrate --check DUMP`: the cut-over preflight on fixture dumps (shared/api/convert/testdata).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bufferIO } from '../io';
import { main } from '../main';

const DATA = join(import.meta.dirname, '..', '..', 'shared', 'api', 'convert', 'testdata');
const BLOCKED = join(DATA, 'cutover-blocked.yaml');
const READY = join(DATA, 'cutover-ready.yaml');

async function run(argv: string[], stdin = '') {
  const io = bufferIO(stdin);
  const code = await main(argv, io);
  return { code, stdout: io.stdout.join(''), stderr: io.stderr.join('') };
}

/** The blocker lines, without the file prefix, in order. */
const blockers = (stdout: string): string[] => {
  const section = stdout.split('\n\nBlockers')[1]?.split('\n\n')[0] ?? '';
  return section
    .split('\n')
    .filter((l) => l.startsWith('  ') && !l.startsWith('    fix:'))
    .map((l) => l.trim().replace(/^\S+#\d+ /, ''));
};

describe('karpless migrate --check', () => {
  it('lists every blocker of the dump with a fix, and exits 1', async () => {
    const out = await run(['migrate', '--check', BLOCKED]);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain('Cut-over preflight for NodePool(s) general, windows: 12 object(s) read.');
    expect(blockers(out.stdout)).toEqual([
      expect.stringMatching(
        /^CustomResourceDefinition\/nodepools\.karpenter\.sh: status\.storedVersions still lists v1beta1/,
      ),
      expect.stringMatching(
        /^CustomResourceDefinition\/nodepools\.karpenter\.sh: spec\.conversion names Karpenter's conversion webhook \(service kube-system\/karpenter\)/,
      ),
      expect.stringMatching(/^Provisioner\/legacy: karpenter\.sh\/v1alpha5 Provisioner/),
      // The NodeClaim and its Node are one machine, reported once.
      expect.stringMatching(
        /^NodeClaim\/general-abcde: Karpenter's \(node ip-10-0-1-17\.ec2\.internal\), in NodePool general \(being moved\), with the karpenter\.sh\/termination finalizer/,
      ),
      expect.stringMatching(
        /^Pod\/batch-0: on node ip-10-0-1-17\.ec2\.internal, annotated karpenter\.sh\/do-not-disrupt: "true"/,
      ),
      expect.stringMatching(
        /^PodDisruptionBudget\/db: it allows 0 disruptions \(status\.disruptionsAllowed\), and it covers 1 pod\(s\) on node\(s\) ip-10-0-1-17\.ec2\.internal/,
      ),
    ]);
    expect(out.stdout).toContain(
      `fix: after storedVersions is [v1]: kubectl patch crd nodepools.karpenter.sh --type=merge -p '{"spec":{"conversion":{"strategy":"None","webhook":null}}}'`,
    );
    expect(out.stdout).toContain('fix: while Karpenter still runs: kubectl delete nodeclaim general-abcde');
    expect(out.stdout).toContain('6 blocker(s): fix them before the cut-over');
  });

  it('checks only the NodePools being moved with --nodepool', async () => {
    const out = await run(['migrate', '--check', BLOCKED, '--nodepool', 'windows']);
    expect(out.code).toBe(1);
    const lines = blockers(out.stdout);
    expect(lines.some((l) => l.startsWith('NodeClaim/') || l.startsWith('PodDisruptionBudget/'))).toBe(false);
    // Karpless bootstraps Windows nodes (docs/api.md, Windows): a windows2022 EC2NodeClass blocks nothing.
    expect(lines.some((l) => l.startsWith('EC2NodeClass/windows'))).toBe(false);
  });

  it('passes a ready cluster read from standard input (-f -) with exit 0', async () => {
    const out = await run(['migrate', '--check', '-f', '-'], readFileSync(READY, 'utf8'));
    expect(out.stderr).toBe('');
    expect(out.stdout).toBe(
      'Cut-over preflight for NodePool(s) general: 5 object(s) read.\n  general: to move (0 Karpenter, 0 Karpless machine(s))\n\nNo blockers: ready to cut over.\n',
    );
    expect(out.code).toBe(0);
  });

  it('refuses a --nodepool the dump has no NodePool of, naming the ones it has', async () => {
    const out = await run(['migrate', '--check', BLOCKED, '--nodepool', 'genral']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('--nodepool: no NodePool genral in the dump (its NodePools: general, windows)');
    expect(out.stdout).toBe('');
  });

  it('says which checks could not run when the dump lacks their input, and never calls it ready', async () => {
    const poolsOnly = readFileSync(READY, 'utf8')
      .split('\n---\n')
      .filter((doc) => /kind: (NodePool|EC2NodeClass)\n/.test(doc))
      .join('\n---\n');
    const out = await run(['migrate', '--check', '-'], poolsOnly);
    expect(out.code).toBe(1);
    expect(out.stdout).not.toContain('ready to cut over');
    expect(out.stdout).toContain('Not checked (3):');
    expect(out.stdout).toMatch(
      /CRD versions and Karpenter's conversion webhook: no Karpenter CustomResourceDefinition/,
    );
    expect(out.stdout).toMatch(/termination finalizer: no Node in the dump/);
    expect(out.stdout).toMatch(/would stop a drain: no Pod in the dump/);
    expect(out.stdout).toContain('No blockers found, but 3 check(s) could not run');
  });

  it('passes a moved pool whose nodes are all Karpless machines, and blocks a moving one on its Karpenter machines only', async () => {
    const machine = (name: string, karpless: boolean) =>
      [
        'apiVersion: v1',
        'kind: Node',
        'metadata:',
        `  name: ${name}`,
        `  labels: { karpenter.sh/nodepool: general${karpless ? `, karpless.dev/nodeclaim: ${name}` : ''} }`,
        '  finalizers: [karpenter.sh/termination]',
      ].join('\n');
    const dump = `${readFileSync(READY, 'utf8')}\n---\n${machine('ip-10-0-5-5.ec2.internal', true)}\n`;
    const moved = await run(['migrate', '--check', '-'], dump);
    expect(moved.stdout).toContain('  general: moved (0 Karpenter, 1 Karpless machine(s))');
    expect(moved.stdout).toContain('No blockers: ready to cut over.');
    expect(moved.code).toBe(0);
    const moving = await run(
      ['migrate', '--check', '-'],
      `${dump}---\n${machine('ip-10-0-6-6.ec2.internal', false)}\n`,
    );
    expect(moving.stdout).toContain('  general: moving (1 Karpenter, 1 Karpless machine(s))');
    expect(blockers(moving.stdout)).toEqual([expect.stringMatching(/^Node\/ip-10-0-6-6\.ec2\.internal: Karpenter's/)]);
    expect(moving.code).toBe(1);
  });

  it('writes the report as JSON with --output json', async () => {
    const out = await run(['migrate', '--check', BLOCKED, '--output', 'json']);
    expect(out.code).toBe(1);
    const report = JSON.parse(out.stdout) as {
      ready: boolean;
      nodePools: string[];
      blockers: unknown[];
      skipped: unknown[];
    };
    expect(report).toMatchObject({ ready: false, nodePools: ['general', 'windows'], objects: 12, skipped: [] });
    expect(report.blockers).toHaveLength(6);
    const ready = await run(['migrate', '--check', READY, '-o', 'json']);
    expect(ready.code).toBe(0);
    expect(JSON.parse(ready.stdout)).toMatchObject({ ready: true, blockers: [], notes: [], skipped: [] });
    expect((await run(['migrate', '--check', READY, '-o', 'yaml'])).code).toBe(2);
    expect((await run(['migrate', READY, '-o', 'json'])).code).toBe(2);
  });

  it('refuses bad usage and unreadable dumps with exit 2', async () => {
    expect((await run(['migrate', READY, '--nodepool', 'general'])).code).toBe(2);
    expect((await run(['migrate', '--check'])).code).toBe(2);
    const bad = await run(['migrate', '--check', '-'], 'items: [\n');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('<stdin>');
    expect(bad.stdout).toBe('');
  });
});
