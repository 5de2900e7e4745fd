// A misspelt command or well-known label key gets the nearest right spelling, through the real CLI.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bufferIO } from '../io';
import { main } from '../main';

const NODEPOOLS = readFileSync('examples/cluster/nodepools.yaml', 'utf8');

describe('typo hints', () => {
  it('suggests the nearest command for a misspelt one, with or without its options', async () => {
    for (const argv of [['simulte'], ['simulte', '-f', 'x.yaml']]) {
      const io = bufferIO();
      expect(await main(argv, io)).toBe(2);
      expect(io.stderr.join('')).toMatch(/unknown command 'simulte'\s+\(Did you mean simulate\?\)/);
    }
  });

  it('still prints the help and exits 0 when no command is given', async () => {
    const io = bufferIO();
    expect(await main([], io)).toBe(0);
    expect(io.stdout.join('')).toMatch(/^Usage: karpless/);
  });

  it('suggests the well-known label for a misspelt NodePool requirement key', async () => {
    const misspelt = NODEPOOLS.replace('karpenter.k8s.aws/instance-category', 'karpenter.k8s.aws/instance-catagory');
    const io = bufferIO(misspelt);
    expect(await main(['simulate', '-f', '-'], io)).toBe(2);
    expect(io.stderr.join('')).toMatch(
      /requirements\[\d\]\.key: label domain "karpenter\.k8s\.aws" is restricted \(did you mean karpenter\.k8s\.aws\/instance-category\?\)/,
    );
  });

  it('suggests the well-known label for a misspelt pod nodeSelector key', async () => {
    const pod = [
      'apiVersion: v1',
      'kind: Pod',
      'metadata: {name: web}',
      'spec:',
      '  nodeSelector: {karpenter.k8s.aws/instance-catagory: c}',
      '  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]',
    ].join('\n');
    const io = bufferIO(`${NODEPOOLS}\n---\n${pod}\n`);
    await main(['simulate', '-f', '-'], io);
    expect(io.stdout.join('')).toMatch(
      /default\/web: .*karpenter\.k8s\.aws\/instance-catagory is restricted \(did you mean karpenter\.k8s\.aws\/instance-category\?\)/,
    );
  });
});
