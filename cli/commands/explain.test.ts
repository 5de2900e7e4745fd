import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DecisionRecord } from '../../shared/api/nodeclaim';
import { planDisruption } from '../../shared/disruption';
import { boundPod, disruptionInput, node, pool } from '../../testkit/disruption';
import { SCENARIO_NODECLASS } from '../../testkit/manifests';
import { bufferIO } from '../io';
import { main } from '../main';
import { explain, recordsSource } from './explain';

const dir = mkdtempSync(join(tmpdir(), 'karpless-explain-'));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function run(...args: string[]) {
  const io = bufferIO();
  const code = await main(['explain', ...args], io);
  return { code, stdout: io.stdout.join(''), stderr: io.stderr.join('') };
}

/** Records of one real sweep: node "small" is consolidated onto "big", "dnd" is kept by its annotation. "big" comes
 * first in the savings-ratio order but its 3-cpu pods fit on no other node, so it stays and takes small's pod. */
function sweepRecords(): DecisionRecord[] {
  const p = pool();
  const plan = planDisruption(
    disruptionInput(
      [
        node('big', { pool: p, type: 'm5.2xlarge', cpus: ['3', '3'] }),
        node('small', { pool: p, cpus: ['1'] }),
        node('dnd', { pool: p, cpus: ['1'], annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }),
      ],
      { nodePools: [p] },
    ),
  );
  const provision: DecisionRecord = {
    id: 'prov-1',
    cluster: 'test',
    at: '2026-01-05T10:00:00.000Z',
    kind: 'Provision',
    nodeClaims: ['claim-small', 'claim-big'],
    summary: '5 pod(s) to place: 2 new NodeClaim(s) at $0.5760/h, 0 unschedulable',
    detail: { trigger: 'PodsPending' },
  };
  return [...plan.records, provision];
}

describe('karpless explain', () => {
  const store = file('decisions.json', JSON.stringify(sweepRecords()));

  it('prints a NodeClaim’s records oldest first, with saving, moves and blockers', async () => {
    const r = await run('claim-small', '--store', store);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('NodeClaim claim-small: 2 decision(s)');
    expect(r.stdout.indexOf('Provision')).toBeLessThan(r.stdout.indexOf('Disrupt'));
    expect(r.stdout).toMatch(/Disrupt {2}Underutilized: small deleted, saving \$0\.1920\/h/);
    expect(r.stdout).toMatch(/pods moving to: (big|dnd) \(1\)/);
    expect(r.stdout).toMatch(/trigger: PodsPending/);
  });

  it('resolves a node name to its claim and shows why it was kept', async () => {
    const r = await run('dnd', '--store', store);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^NodeClaim claim-dnd \(node dnd\): 1 decision\(s\)/);
    expect(r.stdout).toMatch(/Keep {2}kept dnd: node has karpenter.sh\/do-not-disrupt/);
    expect(r.stdout).toMatch(/blocker: node has karpenter.sh\/do-not-disrupt/);
  });

  it('shows a Balanced NodePool’s score: why a move was taken, and why another was not', async () => {
    const p = pool({ policy: 'Balanced' });
    const sweep = (nodes: ReturnType<typeof node>[]) => planDisruption(disruptionInput(nodes, { nodePools: [p] }));
    // Oversized: replacing it saves most of its price for one pod's disruption.
    const taken = sweep([node('oversized', { pool: p, type: 'm5.4xlarge', cpus: ['2'] })]);
    // Cheap and crowded: the saving is small next to the twelve pods it would disrupt.
    const crowded = Array.from({ length: 12 }, () => boundPod('crowded', '100m'));
    const notTaken = sweep([
      node('crowded', { pool: p, type: 'm5.large', pods: crowded }),
      node('full', {
        pool: p,
        type: 'm6g.4xlarge',
        cpus: ['15'],
        annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
      }),
    ]);
    const plan = { records: [...taken.records, ...notTaken.records] };
    const store = file('balanced.json', JSON.stringify(plan.records));
    const replaced = await run('oversized', '--store', store);
    expect(replaced.stdout).toMatch(
      /score: NodePool default score \d+\.\d\d >= threshold 0\.50 \(k: 2, savings \d+\.\d%, disruption \d+\.\d%\)/,
    );
    const kept = await run('crowded', '--store', store);
    expect(kept.stdout).toMatch(
      /blocker: Balanced NodePool default: replacing it score 0\.\d\d < threshold 0\.50 \(k: 2, savings \d+\.\d%, disruption \d+\.\d%\)/,
    );
  });

  it('says when a record was cut to fit the store, and by how much', async () => {
    const cut: DecisionRecord = {
      id: 'prov-2',
      cluster: 'test',
      at: '2026-01-05T11:00:00.000Z',
      kind: 'Provision',
      nodeClaims: ['claim-cut'],
      summary: '20000 pod(s) to place',
      detail: { trigger: 'PodsPending' },
      truncated: { 'detail.claims[0].pods': 14200 },
    };
    const r = await run('claim-cut', '--store', file('cut.json', JSON.stringify([cut])));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('truncated to fit the store: detail.claims[0].pods (14200 more)');
  });

  it('prints JSON with -o json', async () => {
    const r = await run('small', '--store', store, '-o', 'json');
    const e = JSON.parse(r.stdout) as { nodeClaim: string; records: DecisionRecord[] };
    expect(e.nodeClaim).toBe('claim-small');
    expect(e.records.map((x) => x.kind)).toEqual(['Provision', 'Disrupt']);
  });

  it('fails with 1 when nothing names the node, and 2 on bad input', async () => {
    expect((await run('nope', '--store', store)).code).toBe(1);
    expect((await run('small')).code).toBe(2);
    const bad = await run('small', '--store', file('bad.json', '{"decisions": [{"id": 1}]}'));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad.json: \[0\] is not a decision record/);
    expect((await run('small', '--store', join(dir, 'missing.json'))).code).toBe(2);
  });

  it('reads records straight from a store interface', async () => {
    const e = await explain('small', recordsSource(sweepRecords()));
    expect(e?.nodeClaim).toBe('claim-small');
    expect(e?.records).toHaveLength(2);
  });

  it('runs a scenario with --from-sim and explains a node it consolidated', { timeout: 60_000 }, async () => {
    const scenario = file(
      'scale-down.yaml',
      `apiVersion: karpless.dev/v1alpha1
kind: Scenario
metadata: { name: scale-down }
spec:
  until: 20m
  steps:
    - at: 0s
      manifests:
        - apiVersion: karpenter.sh/v1
          kind: NodePool
          metadata: { name: general }
          spec:
            template:
              spec:
                nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }
                requirements:
                  - { key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, m5.xlarge] }
                  - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
                  - { key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a] }
            disruption: { consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 1m }
${SCENARIO_NODECLASS}        - apiVersion: apps/v1
          kind: Deployment
          metadata: { name: web }
          spec:
            replicas: 8
            selector: { matchLabels: { app: web } }
            template:
              metadata: { labels: { app: web } }
              spec: { containers: [{ name: app, image: app, resources: { requests: { cpu: 700m, memory: 1Gi } } }] }
    - at: 5m
      scale: { kind: Deployment, name: web, replicas: 1 }
`,
    );
    const out = join(dir, 'sim-decisions.json');
    const io = bufferIO();
    expect(await main(['simulate', '--scenario', scenario, '--decisions-out', out], io)).toBe(0);
    const records = JSON.parse((await import('node:fs')).readFileSync(out, 'utf8')) as DecisionRecord[];
    const disrupted = records.find((r) => r.kind === 'Disrupt');
    const claim = disrupted?.nodeClaims[0] as string;
    expect(claim).toBeTruthy();
    const r = await run(claim, '--from-sim', scenario);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Provision/);
    expect(r.stdout).toMatch(/Disrupt/);
    // The simulated store still has the claim: where it stands now follows the header.
    expect(r.stdout.split('\n')[1]).toMatch(/^now: Terminated since \S+, m5\.x?large on-demand in us-east-1a at \$/);
  });
});
