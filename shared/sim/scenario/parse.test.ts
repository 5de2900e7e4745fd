import { describe, expect, it } from 'vitest';
import { emptyManifestSet, type ManifestSet } from '../../api/manifest-set';
import { ValidationError } from '../../errors';
import { loadScenario, parseScenario } from './parse';

const noFiles = async (paths: string[]): Promise<ManifestSet> => {
  throw new ValidationError(paths.map((p) => `${p}: no such file or folder`));
};

const scenario = (spec: string): string => `apiVersion: karpless.dev/v1alpha1
kind: Scenario
metadata: { name: test }
spec:
${spec}`;

async function problems(text: string, read = noFiles): Promise<string[]> {
  try {
    await parseScenario(text, 'scen.yaml', read);
  } catch (err) {
    if (err instanceof ValidationError) return err.problems;
    throw err;
  }
  return [];
}

describe('parseScenario', () => {
  it('reads durations, defaults and every kind of step, sorted by time', async () => {
    const read = async (paths: string[]) => {
      expect(paths).toEqual(['manifests/web.yaml']);
      return emptyManifestSet();
    };
    const s = await parseScenario(
      scenario(`  until: 6h
  steps:
    - at: 4h
      interrupt: { instanceType: m5.large, zone: us-east-1a, capacityType: spot }
    - at: 0s
      apply: ["manifests/web.yaml"]
    - at: 30m
      scale: { kind: Deployment, namespace: shop, name: web, replicas: 3 }
    - at: 2h
      delete: [{ kind: Job, name: batch }]
    - at: 3h
      patch: { kind: NodePool, name: default, mergePatch: { spec: { template: { metadata: { labels: { v: "2" } } } } } }
    - at: 1h
      every: 2h
      interrupt: { nodeClaim: general-abc }
`),
      'scen.yaml',
      read,
    );
    expect(s.nodeReadyAfter).toBe(45_000);
    expect(s.sweepEvery).toBe(60_000);
    expect(s.until).toBe(6 * 3_600_000);
    expect(s.steps.map((x) => [x.at, x.action.type])).toEqual([
      [0, 'apply'],
      [1_800_000, 'scale'],
      [3_600_000, 'interrupt'],
      [7_200_000, 'delete'],
      [10_800_000, 'patch'],
      [14_400_000, 'interrupt'],
    ]);
    expect(s.steps[1]?.action).toEqual({
      type: 'scale',
      target: { kind: 'Deployment', namespace: 'shop', name: 'web' },
      replicas: 3,
    });
    expect(s.steps[2]?.every).toBe(7_200_000);
    expect(s.steps[3]?.action).toEqual({
      type: 'delete',
      targets: [{ kind: 'Job', namespace: 'default', name: 'batch' }],
    });
    expect(s.steps[5]?.action).toEqual({
      type: 'interrupt',
      instanceType: 'm5.large',
      zone: 'us-east-1a',
      capacityType: 'spot',
    });
  });

  it('builds inline manifests with the API validation, naming the step', async () => {
    const s = await parseScenario(
      scenario(`  until: 1h
  steps:
    - at: 0s
      manifests:
        - apiVersion: apps/v1
          kind: Deployment
          metadata: { name: web }
          spec:
            replicas: 2
            selector: { matchLabels: { app: web } }
            template:
              metadata: { labels: { app: web } }
              spec: { containers: [{ name: c, image: nginx, resources: { requests: { cpu: 100m } } }] }
`),
      'scen.yaml',
      noFiles,
    );
    const action = s.steps[0]?.action;
    expect(action?.type).toBe('apply');
    if (action?.type === 'apply') expect(action.set.deployments.map((d) => d.metadata.name)).toEqual(['web']);

    const bad = await problems(
      scenario(`  until: 1h
  steps:
    - at: 0s
      manifests:
        - apiVersion: apps/v1
          kind: Deployment
          metadata: { name: web }
          spec: { replicas: -1, template: { spec: { containers: [] } } }
`),
    );
    expect(bad.some((p) => p.startsWith('scen.yaml spec.steps[0].manifests#1 Deployment/web: spec.replicas'))).toBe(
      true,
    );
  });

  it('names the file, the Scenario and the field path of every problem', async () => {
    const found = await problems(`apiVersion: karpless.dev/v1
kind: Scenario
metadata: { name: broken }
spec:
  sweepEvery: soon
  untill: 1h
  steps:
    - at: 10x
      scale: { kind: Deployment, name: web }
    - at: 1m
      scale: { kind: DaemonSet, name: agents, replicas: 2 }
    - at: 2m
    - at: 3m
      interrupt: { nodeClaim: a, instanceType: m5.large }
    - at: 4m
      patch: { kind: NodePool, name: default }
    - at: 5m
      apply: ["missing.yaml"]
`);
    const prefix = 'scen.yaml#1 Scenario/broken: ';
    expect(found).toEqual(
      expect.arrayContaining([
        `${prefix}apiVersion: must be karpless.dev/v1alpha1, got "karpless.dev/v1"`,
        expect.stringContaining(`${prefix}spec.sweepEvery: "soon" is not a valid duration`),
        `${prefix}spec.untill: unknown field`,
        `${prefix}spec.until: required`,
        expect.stringContaining(`${prefix}spec.steps[0].at: "10x" is not a valid duration`),
        `${prefix}spec.steps[0].scale.replicas: required`,
        expect.stringContaining(`${prefix}spec.steps[1].scale.kind: "DaemonSet" is not one of Deployment`),
        expect.stringContaining(`${prefix}spec.steps[2]: needs exactly one of apply, scale, delete, patch, interrupt`),
        expect.stringContaining(`${prefix}spec.steps[3].interrupt: give either nodeClaim or an offering`),
        `${prefix}spec.steps[4].patch.mergePatch: required`,
        `${prefix}spec.steps[5].apply: missing.yaml: no such file or folder`,
      ]),
    );
  });

  it('rejects YAML that is not a scenario', async () => {
    expect(await problems('- a\n- b\n')).toEqual([
      'scen.yaml: not a scenario; expected a Scenario (YAML with apiVersion karpless.dev/v1alpha1, kind Scenario and spec)',
    ]);
    expect((await problems('a: [\n'))[0]).toMatch(/^scen\.yaml: line \d+: /);
  });

  it('reads the bundled examples with their manifests, relative to the scenario file', async () => {
    const s = await loadScenario('examples/scenarios/scale-down.yaml');
    expect(s.name).toBe('scale-down-consolidation');
    const apply = s.steps[0]?.action;
    expect(apply?.type === 'apply' && apply.set.nodePools.map((p) => p.metadata.name)).toEqual(['general']);
    await expect(loadScenario('examples/scenarios/nope.yaml')).rejects.toThrow(
      /nope\.yaml: no such file; expected a Scenario/,
    );
  });
});
