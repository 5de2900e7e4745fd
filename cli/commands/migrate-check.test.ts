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
      expect.stringMatching(
        /^NodeClaim\/general-abcde: Karpenter's, in NodePool general \(being moved\), with the karpenter\.sh\/termination finalizer/,
      ),
      expect.stringMatching(
        /^Node\/ip-10-0-1-17\.ec2\.internal: Karpenter's, in NodePool general \(being moved\), with the karpenter\.sh\/termination finalizer/,
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
    expect(out.stdout).toContain('7 blocker(s): fix them before the cut-over');
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
      'Cut-over preflight for NodePool(s) general: 4 object(s) read.\n\nNo blockers: ready to cut over.\n',
    );
    expect(out.code).toBe(0);
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
