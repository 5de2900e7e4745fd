import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { bufferIO } from '../io';
import { registerCrds } from '../program/commands';
import type { CommandContext } from './index';

describe('karpless crds', () => {
  it('prints the NodePool, EC2NodeClass, NodeOverlay and NodeClaim CRDs as YAML and exits 0', async () => {
    const io = bufferIO();
    const ctx: CommandContext = { io, result: { code: -1 } };
    const program = new Command('karpless').exitOverride();
    registerCrds(program, ctx);
    await program.parseAsync(['crds'], { from: 'user' });
    expect(ctx.result.code).toBe(0);
    expect(io.stderr).toEqual([]);
    const docs = parseAllDocuments(io.stdout.join('')).map((d) => d.toJS());
    expect(docs.map((d) => `${d.kind} ${d.spec.group}/${d.spec.versions[0].name} ${d.spec.names.kind}`)).toEqual([
      'CustomResourceDefinition karpenter.sh/v1 NodePool',
      'CustomResourceDefinition karpenter.k8s.aws/v1 EC2NodeClass',
      'CustomResourceDefinition karpenter.sh/v1alpha1 NodeOverlay',
      'CustomResourceDefinition karpenter.sh/v1 NodeClaim',
    ]);
  });
});
