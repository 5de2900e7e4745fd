import { describe, expect, it } from 'vitest';
import { noScenarioFiles as noFiles, scenarioProblems as problems } from '../../../testkit/scenario';
import { parseScenario } from './parse';

const scenario = (steps: string): string => `apiVersion: karpless.dev/v1alpha1
kind: Scenario
metadata: { name: test }
spec:
  until: 1h
  settings: { spotToSpotConsolidation: true }
  steps:
${steps}`;

describe('object steps and settings in a scenario', () => {
  it('reads annotate, label, taint, complete and nodeCondition steps, and the settings', async () => {
    const s = await parseScenario(
      scenario(`    - at: 1m
      annotate: { kind: Node, selector: { karpenter.sh/nodepool: general }, annotations: { karpenter.sh/do-not-disrupt: "true" } }
    - at: 2m
      label: { kind: Pod, namespace: shop, name: web-0, labels: { tier: null } }
    - at: 3m
      taint: { name: n1, add: [{ key: dedicated, value: gpu, effect: NoSchedule }] }
    - at: 4m
      complete: { selector: { app: batch }, phase: Succeeded }
    - at: 5m
      nodeCondition: { name: n1, type: Ready, status: Unknown }
    - at: 6m
      nodeCondition: { name: n1, type: KernelReady, status: "False" }`),
      'scen.yaml',
      noFiles,
    );
    expect(s.settings?.spotToSpotConsolidation).toBe(true);
    expect(s.steps.map((x) => x.action)).toEqual([
      {
        type: 'annotate',
        target: { kind: 'Node', namespace: 'default', selector: { 'karpenter.sh/nodepool': 'general' } },
        values: { 'karpenter.sh/do-not-disrupt': 'true' },
      },
      { type: 'label', target: { kind: 'Pod', namespace: 'shop', name: 'web-0' }, values: { tier: null } },
      {
        type: 'taint',
        target: { kind: 'Node', namespace: 'default', name: 'n1' },
        add: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
        remove: [],
      },
      {
        type: 'complete',
        target: { kind: 'Pod', namespace: 'default', selector: { app: 'batch' } },
        phase: 'Succeeded',
      },
      {
        type: 'nodeCondition',
        target: { kind: 'Node', namespace: 'default', name: 'n1' },
        condition: 'Ready',
        status: 'Unknown',
      },
      {
        type: 'nodeCondition',
        target: { kind: 'Node', namespace: 'default', name: 'n1' },
        condition: 'KernelReady',
        status: 'False',
      },
    ]);
  });

  it('names the file, the Scenario and the field path of every bad step field', async () => {
    expect(
      await problems(
        scenario(`    - at: 1m
      annotate: { kind: Service, name: x, annotations: { a: 1 } }
    - at: 2m
      taint: { name: n1, selector: { a: b }, add: [{ key: k, effect: Sometimes }] }
    - at: 3m
      complete: { name: p, phase: Done, extra: 1 }
    - at: 4m
      nodeCondition: { kind: Node, namespace: x, name: n, status: Maybe }
    - at: 5m
      nodeCondition: { name: n, type: "not a type", status: "False" }`),
      ),
    ).toEqual([
      'scen.yaml#1 Scenario/test: spec.steps[0].annotate.kind: "Service" is not one of Node, Pod',
      'scen.yaml#1 Scenario/test: spec.steps[0].annotate.annotations.a: must be a string (or null to remove it), got 1',
      'scen.yaml#1 Scenario/test: spec.steps[1].taint: give exactly one of name or selector (labels the objects must carry)',
      'scen.yaml#1 Scenario/test: spec.steps[1].taint.add[0].effect: "Sometimes" is not one of NoSchedule, PreferNoSchedule, NoExecute',
      'scen.yaml#1 Scenario/test: spec.steps[2].complete.extra: unknown field',
      'scen.yaml#1 Scenario/test: spec.steps[2].complete.phase: "Done" is not one of Succeeded, Failed',
      'scen.yaml#1 Scenario/test: spec.steps[3].nodeCondition.namespace: unknown field',
      'scen.yaml#1 Scenario/test: spec.steps[3].nodeCondition.status: "Maybe" is not one of True, False, Unknown',
      'scen.yaml#1 Scenario/test: spec.steps[4].nodeCondition.type: must be a condition type such as Ready or KernelReady, got "not a type"',
    ]);
  });

  it('rejects an unknown or malformed setting at its field path', async () => {
    expect(
      await problems(`apiVersion: karpless.dev/v1alpha1
kind: Scenario
metadata: { name: test }
spec:
  until: 1h
  settings: { spotToSpotConsolidation: "yes", nominationWindow: soon }
  steps: []`),
    ).toEqual([
      expect.stringContaining('spec.settings.spotToSpotConsolidation: must be true or false, got "yes"'),
      expect.stringContaining('spec.settings.nominationWindow: must be a duration such as 15s or 10m, got "soon"'),
    ]);
  });
});
