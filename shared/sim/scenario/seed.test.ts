import { describe, expect, it } from 'vitest';
import { noScenarioFiles as noFiles, scenarioProblems as problems } from '../../../testkit/scenario';
import { parseScenario } from './parse';

const scenario = (seed: string): string => `apiVersion: karpless.dev/v1alpha1
kind: Scenario
metadata: { name: test }
spec:
  until: 1h
  steps:
    - at: 0s
      seed:
${seed}`;

describe('the seed step', () => {
  it('reads Nodes and their bound pods', async () => {
    const s = await parseScenario(
      scenario(`        - { apiVersion: v1, kind: Node, metadata: { name: n1, labels: { karpenter.sh/nodepool: general, node.kubernetes.io/instance-type: m5.large } } }
        - apiVersion: v1
          kind: Pod
          metadata: { name: p1, namespace: default }
          spec: { nodeName: n1, containers: [{ name: c, image: i }] }
          status: { phase: Running, startTime: "2026-01-04T23:40:00Z" }`),
      'scen.yaml',
      noFiles,
    );
    const action = s.steps[0]?.action;
    expect(action?.type).toBe('seed');
    if (action?.type !== 'seed') return;
    expect(action.nodes.map((n) => n.metadata.name)).toEqual(['n1']);
    expect(action.pods.map((p) => [p.spec.nodeName, p.status?.startTime])).toEqual([['n1', '2026-01-04T23:40:00Z']]);
  });

  it('names the field path of a Node without its NodePool, a pod on no seeded Node, and other kinds', async () => {
    const errors = await problems(
      scenario(`        - { apiVersion: v1, kind: Node, metadata: { name: n1, labels: { node.kubernetes.io/instance-type: m5.large } } }
        - { apiVersion: v1, kind: Pod, metadata: { name: p1 }, spec: { nodeName: n9, containers: [{ name: c, image: i }] } }
        - { apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: { name: b }, spec: { maxUnavailable: 0, selector: { matchLabels: { a: b } } } }`),
    );
    expect(errors.join('\n')).toMatch(
      /spec\.steps\[0\]\.seed Node n1: metadata\.labels\.karpenter\.sh\/nodepool: required/,
    );
    expect(errors.join('\n')).toMatch(
      /spec\.steps\[0\]\.seed Pod default\/p1: spec\.nodeName: must name a Node of this seed step/,
    );
    expect(errors.join('\n')).toMatch(/seeds only Nodes and Pods; apply pdbs/);
  });
});
