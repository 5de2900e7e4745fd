import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DecisionRecord } from '../../shared/api/nodeclaim';
import type { ScenarioReport } from '../../shared/sim/scenario/report';
import { SCENARIO_NODECLASS } from '../../testkit/manifests';
import { bufferIO } from '../io';
import { main } from '../main';

const dir = mkdtempSync(join(tmpdir(), 'karpless-scenario-'));

const SCENARIO = `apiVersion: karpless.dev/v1alpha1
kind: Scenario
metadata: { name: small-scale-down }
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
                  - { key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, m5.xlarge, m5.2xlarge] }
                  - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
                  - { key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a] }
            disruption: { consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 1m }
${SCENARIO_NODECLASS}        - apiVersion: apps/v1
          kind: Deployment
          metadata: { name: web }
          spec:
            replicas: 12
            selector: { matchLabels: { app: web } }
            template:
              metadata: { labels: { app: web } }
              spec: { containers: [{ name: app, image: app, resources: { requests: { cpu: 700m, memory: 1Gi } } }] }
    - at: 5m
      scale: { kind: Deployment, name: web, replicas: 2 }
`;

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function run(...args: string[]) {
  const io = bufferIO();
  const code = await main(['simulate', ...args], io);
  return { code, stdout: io.stdout.join(''), stderr: io.stderr.join('') };
}

describe('karpless simulate --scenario', () => {
  const scenario = file('small.yaml', SCENARIO);

  it('prints the §5 fields plus timeline, cost over time, totals and violations as JSON, the same for the same seed', async () => {
    const decisions = join(dir, 'decisions.json');
    const first = await run('--scenario', scenario, '-o', 'json', '--seed', '3', '--decisions-out', decisions);
    expect(first.code).toBe(0);
    const report = JSON.parse(first.stdout) as ScenarioReport;
    for (const k of [
      'nodeClaims',
      'existingNodes',
      'unschedulable',
      'warnings',
      'summary',
      'timeline',
      'costOverTime',
      'totals',
      'violations',
    ]) {
      expect(report).toHaveProperty(k);
    }
    expect(report.summary).toMatchObject({ pods: 2, scheduledPods: 2 });
    expect(report.violations).toEqual({ pdb: 0, doNotDisrupt: 0, budget: 0 });
    expect(report.totals.disruptions).toBeGreaterThan(0);
    expect(report.timeline.some((e) => e.type === 'Disrupting' && e.reason !== '')).toBe(true);
    expect(report.costOverTime[0]).toEqual({ at: '0s', costPerHour: 0, lowerBoundPerHour: expect.any(Number) });
    // Cost falls after the scale-down, and never goes below the bound at the end.
    const last = report.costOverTime.at(-1);
    expect(last?.costPerHour).toBeLessThan(Math.max(...report.costOverTime.map((c) => c.costPerHour)));
    expect(last?.costPerHour).toBeGreaterThanOrEqual(last?.lowerBoundPerHour ?? 0);

    const records = JSON.parse(readFileSync(decisions, 'utf8')) as DecisionRecord[];
    expect(records.some((r) => r.kind === 'Provision')).toBe(true);
    expect(records.some((r) => r.kind === 'Disrupt')).toBe(true);
    expect(first.stderr).toMatch(/wrote \d+ decision record\(s\)/);

    const second = await run('--scenario', scenario, '-o', 'json', '--seed', '3');
    expect(second.stdout).toBe(first.stdout);
  });

  it('renders a table with the totals and the timeline', async () => {
    const out = await run('--scenario', scenario);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Scenario small-scale-down (seed 1), 20m simulated');
    expect(out.stdout).toMatch(/violations \(pdb \/ do-not-disrupt \/ budget\)\s+0 \/ 0 \/ 0/);
    expect(out.stdout).toMatch(/Launched\s+general-/);
    expect(out.stdout).toContain('End state: 2/2 pods running');
  });

  it('writes a self-contained HTML report: inline SVG charts, no scripts or external assets', async () => {
    const out = await run('--scenario', scenario, '--output', 'html');
    expect(out.code).toBe(0);
    const html = out.stdout;
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html.match(/<svg xmlns/g)?.length).toBe(3);
    expect(html).toContain('LP lower bound $/h');
    expect(html).toContain('NodePool general');
    expect(html).toMatch(/<td class="at">\d/);
    expect(html).not.toMatch(/<script|<link|src=|@import/);
    expect(html.replace(/xmlns="http:\/\/www\.w3\.org\/2000\/svg"/g, '')).not.toMatch(/https?:\/\//);
  });

  it('rejects bad usage and bad scenarios with exit 2 and the problem on stderr', async () => {
    expect((await run('--scenario', scenario, '-f', scenario)).code).toBe(2);
    const html = await run('-f', scenario, '-o', 'html');
    expect(html.code).toBe(2);
    expect(html.stderr).toContain('"html" is not one of table, json');
    expect((await run('-f', scenario, '--decisions-out', join(dir, 'x.json'))).code).toBe(2);
    const bad = file('bad.yaml', SCENARIO.replace('replicas: 2 }', 'replicas: -2 }'));
    const out = await run('--scenario', bad, '-o', 'json');
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain(
      `${bad}#1 Scenario/small-scale-down: spec.steps[1].scale.replicas: must be at least 0, got -2`,
    );
    const neither = await run();
    expect(neither.code).toBe(2);
    expect(neither.stderr).toMatch(/--file/);
  });
});
