// `karpless nodeclaims --from-sim SCENARIO`: the NodeClaim objects a simulated run mirrored into its cluster, with
// `kubectl get nodeclaims`' default columns.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NodeClaimObject } from '../../shared/api/nodeclaim-object';
import { SCENARIO_NODECLASS } from '../../testkit/manifests';
import { bufferIO } from '../io';
import { main } from '../main';

const dir = mkdtempSync(join(tmpdir(), 'karpless-nodeclaims-sim-'));
const file = join(dir, 'static.yaml');
writeFileSync(
  file,
  `apiVersion: karpless.dev/v1alpha1
kind: Scenario
metadata: { name: static }
spec:
  until: 10m
  steps:
    - at: 0s
      manifests:
        - apiVersion: karpenter.sh/v1
          kind: NodePool
          metadata: { name: static-capacity }
          spec:
            replicas: 2
            template:
              spec:
                nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }
                requirements:
                  - { key: node.kubernetes.io/instance-type, operator: In, values: [m5.large] }
                  - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
                  - { key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a] }
${SCENARIO_NODECLASS}`,
);

async function nodeclaims(...args: string[]) {
  const io = bufferIO();
  const code = await main(['nodeclaims', ...args], io);
  return { code, stdout: io.stdout.join(''), stderr: io.stderr.join('') };
}

describe('karpless nodeclaims --from-sim', () => {
  it('prints the mirrored NodeClaim objects with kubectl get nodeclaims’ columns', async () => {
    const r = await nodeclaims('--from-sim', file);
    expect(r.code).toBe(0);
    const [header, ...rows] = r.stdout.trim().split('\n');
    expect(header?.split(/\s+/)).toEqual(['NAME', 'TYPE', 'CAPACITY', 'ZONE', 'NODE', 'READY', 'AGE']);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatch(/^static-capacity-\S+\s+m5\.large\s+on-demand\s+us-east-1a\s+ip-\S+\s+True\s+\d+m$/);
    }
  });

  it('prints the objects as JSON, and refuses --table with --from-sim', async () => {
    const r = await nodeclaims('--from-sim', file, '-o', 'json');
    const objects = JSON.parse(r.stdout) as NodeClaimObject[];
    expect(objects.map((o) => [o.apiVersion, o.kind, o.metadata.labels?.['karpenter.sh/nodepool']])).toEqual([
      ['karpenter.sh/v1', 'NodeClaim', 'static-capacity'],
      ['karpenter.sh/v1', 'NodeClaim', 'static-capacity'],
    ]);
    const both = await nodeclaims('--from-sim', file, '--table', 't', '--cluster', 'c');
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/give one of --table/);
  });
});
