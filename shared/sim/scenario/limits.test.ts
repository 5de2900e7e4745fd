import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emptyManifestSet } from '../../api/manifest-set';
import { ValidationError } from '../../errors';
import { loadScenario, parseScenario } from './parse';

const scenario = (spec: string): string =>
  `apiVersion: karpless.dev/v1alpha1\nkind: Scenario\nmetadata: { name: big }\nspec:\n${spec}`;

async function problems(text: string): Promise<string[]> {
  try {
    await parseScenario(text, 'scen.yaml', async () => emptyManifestSet());
  } catch (err) {
    if (err instanceof ValidationError) return err.problems;
    throw err;
  }
  return [];
}

const interrupt = 'interrupt: { nodeClaim: a }';

describe('scenario limits', () => {
  it('refuses a simulated time past 30 days', async () => {
    expect(await problems(scenario(`  until: 100000000h\n  steps: [{ at: 0s, ${interrupt} }]\n`))).toEqual([
      'scen.yaml#1 Scenario/big: spec.until: is longer than the limit of 720h of simulated time',
    ]);
    expect(await problems(scenario(`  until: 720h\n  steps: [{ at: 0s, ${interrupt} }]\n`))).toEqual([]);
  });

  it('refuses a step that repeats too often over the run', async () => {
    expect(await problems(scenario(`  until: 720h\n  steps: [{ at: 0s, every: 1s, ${interrupt} }]\n`))).toEqual([
      'scen.yaml#1 Scenario/big: spec.steps[0].every: repeats past the limit of 100000 step firings in one scenario',
    ]);
  });

  it('refuses sweeps too frequent for the run', async () => {
    expect(await problems(scenario(`  until: 720h\n  sweepEvery: 1s\n  steps: [{ at: 0s, ${interrupt} }]\n`))).toEqual([
      'scen.yaml#1 Scenario/big: spec.sweepEvery: 1s over 720h is more than 100000 sweeps; sweep less often',
    ]);
  });

  it('refuses more than 1000 steps, and a scale past the pod limit', async () => {
    const many = Array.from({ length: 1001 }, () => `    - { at: 0s, ${interrupt} }`).join('\n');
    expect(await problems(scenario(`  until: 1h\n  steps:\n${many}\n`))).toEqual([
      'scen.yaml#1 Scenario/big: spec.steps: has 1001 steps; the limit is 1000',
    ]);
    const scale = 'scale: { kind: Deployment, name: web, replicas: 1000000000 }';
    expect((await problems(scenario(`  until: 1h\n  steps: [{ at: 0s, ${scale} }]\n`))).join('\n')).toMatch(
      /spec\.steps\[0\]\.scale\.replicas: .*100000/,
    );
  });

  it('refuses YAML nested too deeply and a second document', async () => {
    expect(await problems(`a: ${'['.repeat(5000)}${']'.repeat(5000)}\n`)).toEqual([
      'scen.yaml: line 1: nested more than 100 levels deep',
    ]);
    expect(await problems(`${scenario(`  until: 1h\n  steps: [{ at: 0s, ${interrupt} }]\n`)}---\na: 1\n`)).toEqual([
      'scen.yaml: holds 2 YAML documents; a scenario file holds one',
    ]);
  });

  it('refuses (1 + √pods) × instants past the work cap, naming the estimate, and accepts every example', async () => {
    const scale = (n: number) => `{ at: 0s, scale: { kind: Deployment, namespace: shop, name: web, replicas: ${n} } }`;
    // (1 + √1,000) × (1,620 sweeps + 810 collections + 1 firing) = 79,306: within the cap.
    expect(await problems(scenario(`  until: 27h\n  steps: [${scale(1000)}]\n`))).toEqual([]);
    expect(await problems(scenario(`  until: 28h\n  steps: [${scale(1000)}]\n`))).toEqual([
      'scen.yaml#1 Scenario/big: spec.until: (1 + √1,000 pods) × 2,521 instants (sweepEvery 1m and a collection ' +
        'every 2m over 28h, plus 1 step firings) is 82,243 units of work, past the limit of 80,000; use fewer ' +
        'pods (spec.steps replicas), a shorter until or a longer sweepEvery',
    ]);
    // A few pods over the longest run cost most per pod: 50 pods over 720h ran past 9 minutes, and is refused.
    expect(await problems(scenario(`  until: 720h\n  steps: [${scale(50)}]\n`))).toHaveLength(1);
    // The peak, not the sum of the steps: a workload scaled 1,000 → 10 → 1,000 counts 1,000 pods once.
    const twice = `[${scale(1000)}, ${scale(10).replace('0s', '1h')}, ${scale(1000).replace('0s', '2h')}]`;
    expect(await problems(scenario(`  until: 27h\n  steps: ${twice}\n`))).toEqual([]);
    for (const f of readdirSync('examples/scenarios').filter((n) => n.endsWith('.yaml'))) {
      await expect(loadScenario(`examples/scenarios/${f}`)).resolves.toMatchObject({ file: `examples/scenarios/${f}` });
    }
  });
});
