import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bufferIO } from '../io';
import { main } from '../main';

const deployment = (replicas: number): string => `apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  replicas: ${replicas}
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec: { containers: [{ name: c, image: x, resources: { requests: { cpu: 100m } } }] }
`;

async function run(yaml: string, ...flags: string[]) {
  const file = join(await mkdtemp(join(tmpdir(), 'karpless-limits-')), 'in.yaml');
  await writeFile(file, yaml);
  const io = bufferIO();
  const code = await main(['simulate', '-f', file, ...flags], io);
  return { code, file, stderr: io.stderr.join(''), stdout: io.stdout.join('') };
}

describe('simulate --max-pods and --ignore-unknown', () => {
  it('refuses a run past --max-pods and plans it when the limit is raised', async () => {
    const refused = await run(deployment(8), '--max-pods', '5');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `${refused.file}#1 Deployment/web: spec.replicas: 8 pods would take this run past its limit of 5 pods (raise it with --max-pods)\n`,
    );
    const planned = await run(deployment(8), '--max-pods', '8');
    expect(planned.code).toBe(0);
    expect(planned.stdout).toMatch(/8\/8 pods scheduled/);
  });

  it('rejects a --max-pods that is not a positive integer', async () => {
    const out = await run(deployment(1), '--max-pods', '1e3');
    expect(out.code).toBe(2);
    expect(out.stderr).toBe('--max-pods: "1e3" is not a positive integer\n');
  });

  it('fails on a misspelt kind, and skips it with a warning under --ignore-unknown', async () => {
    const typo = `apiVersion: karpenter.sh/v1\nkind: NodePol\nmetadata: {name: a}\nspec: {}\n---\n${deployment(1)}`;
    const failed = await run(typo);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/kind NodePol is not used by Karpless \(did you mean NodePool\?\)/);
    const skipped = await run(typo, '--ignore-unknown');
    expect(skipped.code).toBe(0);
    expect(skipped.stdout).toMatch(/kind NodePol is not used by Karpless; skipped/);
  });
});
