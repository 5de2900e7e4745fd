import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { parseManifests } from '../../shared/api';
import { bufferIO } from '../io';
import { registerMigrate } from '../program/commands';
import type { CommandContext } from './index';

async function migrate(...paths: string[]) {
  const io = bufferIO();
  const ctx: CommandContext = { io, result: { code: -1 } };
  const program = new Command('karpless').exitOverride();
  registerMigrate(program, ctx);
  await program.parseAsync(['migrate', ...paths], { from: 'user' });
  return { code: ctx.result.code, stdout: io.stdout.join(''), stderr: io.stderr.join('') };
}

const SEED = join(import.meta.dirname, '..', '..', 'shared', 'api', 'convert', 'testdata', 'seed-provisioner.yaml');

describe('karpless migrate', () => {
  it('prints the converted v1 manifests on stdout and the warnings on stderr', async () => {
    const { code, stdout, stderr } = await migrate(SEED);
    expect(code).toBe(0);
    const docs = parseAllDocuments(stdout).map((d) => d.toJS());
    expect(docs.map((d) => `${d.apiVersion} ${d.kind}/${d.metadata.name}`)).toEqual([
      'karpenter.sh/v1 NodePool/default',
      'karpenter.k8s.aws/v1 EC2NodeClass/default',
    ]);
    expect(docs[0].spec.disruption).toEqual({
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
      consolidateAfter: '0s',
    });
    expect(stderr).toContain(`warning: ${SEED}#1 Provisioner/default: converted to NodePool/default (karpenter.sh/v1)`);
    expect(stderr).toContain(
      `warning: ${SEED}#2 AWSNodeTemplate/default: converted to EC2NodeClass/default (karpenter.k8s.aws/v1)`,
    );
    // The output reads back as v1 with no further conversion.
    const again = parseManifests(stdout, 'migrated.yaml');
    expect(again.nodePools[0]?.spec.template.spec.requirements).toHaveLength(6);
    expect(again.warnings.filter((w) => w.includes('converted'))).toEqual([]);
  });

  it('passes other documents through in order', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'karpless-migrate-'));
    await writeFile(
      join(dir, 'a.yaml'),
      'apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\n',
    );
    await writeFile(join(dir, 'b.yaml'), await readFile(SEED, 'utf8'));
    const { code, stdout } = await migrate(dir);
    expect(code).toBe(0);
    expect(parseAllDocuments(stdout).map((d) => d.toJS().kind)).toEqual([
      'Namespace',
      'Service',
      'NodePool',
      'EC2NodeClass',
    ]);
  });

  it('exits 2 with the problems on stderr and nothing on stdout for invalid input', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'karpless-migrate-'));
    const file = join(dir, 'bad.yaml');
    await writeFile(
      file,
      'apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: p}\nspec:\n  ttlSecondsAfterEmpty: soon\n  providerRef: {name: t}\n',
    );
    const { code, stdout, stderr } = await migrate(file);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `${file}#1 Provisioner/p: spec.ttlSecondsAfterEmpty: must be a whole number of seconds, got "soon"\n`,
    );
  });

  it('exits 2 for a missing file', async () => {
    const { code, stdout, stderr } = await migrate('/no/such/file.yaml');
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      '/no/such/file.yaml: no such file or folder; expected YAML manifests (Kubernetes objects with apiVersion and kind)\n',
    );
  });
});
