import { describe, expect, it } from 'vitest';
import { VALID_NODECLASS, VALID_NODEPOOL } from '../../testkit/manifests';
import { ValidationError } from '../errors';
import { inputLimits, nestingDepth } from './limits';
import { parseManifests } from './parse';

const problems = (yaml: string, limits = inputLimits()): string[] => {
  try {
    parseManifests(yaml, 'in.yaml', limits);
    return [];
  } catch (err) {
    if (err instanceof ValidationError) return err.problems;
    throw err;
  }
};

const deployment = (name: string, replicas: number): string => `apiVersion: apps/v1
kind: Deployment
metadata: { name: ${name} }
spec:
  replicas: ${replicas}
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec: { containers: [{ name: c, image: x, resources: { requests: { cpu: 10m } } }] }
`;

describe('input limits', () => {
  it('measures nesting without recursion, stopping early', () => {
    expect(nestingDepth({ a: [1, { b: 2 }] }, 10)).toBe(3);
    expect(nestingDepth('x', 10)).toBe(0);
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(nestingDepth(deep, 50)).toBe(51);
  });

  it('refuses YAML nested past the depth limit, including one that would overflow the parser stack', () => {
    const flow = `a: ${'['.repeat(5000)}${']'.repeat(5000)}\n`;
    expect(problems(flow)).toEqual(['in.yaml#1: line 1: nested more than 100 levels deep']);
    const block = `a: ${'['.repeat(150)}${']'.repeat(150)}\n`;
    expect(problems(block)).toEqual(['in.yaml#1: nested more than 100 levels deep']);
  });

  it('refuses a billion-laughs alias expansion', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 8; i++)
      lines.push(
        `${'b'.repeat(i + 1)}: &${'b'.repeat(i + 1)} [${Array(10)
          .fill(`*${i === 0 ? 'a' : 'b'.repeat(i)}`)
          .join(', ')}]`,
      );
    const out = problems(`${lines.join('\n')}\n`);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^in\.yaml#1: .*alias/i);
  });

  it('refuses a file over the size limit before parsing it', () => {
    const out = problems(`${VALID_NODEPOOL}---\n${VALID_NODECLASS}`, inputLimits({ maxFileBytes: 100 }));
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^in\.yaml: .* is more than the limit of .* per file; split it$/);
  });

  it('refuses replicas past the pod limit, naming the object and field, and takes a raised limit', () => {
    expect(problems(deployment('web', 1_000_000_000))).toEqual([
      'in.yaml#1 Deployment/web: spec.replicas: 1000000000 pods would take this run past its limit of 100000 pods (raise it with --max-pods)',
    ]);
    const two = `${deployment('a', 60)}---\n${deployment('b', 60)}`;
    expect(problems(two, inputLimits({ maxPods: 100 }))).toEqual([
      'in.yaml#2 Deployment/b: spec.replicas: 60 pods would take this run past its limit of 100 pods (raise it with --max-pods)',
    ]);
    expect(problems(two, inputLimits({ maxPods: 120 }))).toEqual([]);
  });

  it('refuses names longer than Kubernetes allows, and NodePool names longer than a label value', () => {
    const long = 'a'.repeat(254);
    expect(problems(deployment(long, 1))).toEqual([
      `in.yaml#1 Deployment/${long}: metadata.name: is 254 characters; Kubernetes names stop at 253`,
    ]);
    const pool = VALID_NODEPOOL.replace(/name: \S+/, `name: ${'p'.repeat(64)}`);
    expect(problems(`${pool}---\n${VALID_NODECLASS}`).join('\n')).toMatch(
      /metadata\.name: is 64 characters; a NodePool's name is the karpenter\.sh\/nodepool label value/,
    );
  });

  it('makes an unknown kind an error with a suggestion, or a warning with ignoreUnknownKinds', () => {
    const typo = 'apiVersion: karpenter.sh/v1\nkind: NodePol\nmetadata: {name: a}\nspec: {}\n';
    expect(problems(typo)).toEqual([
      'in.yaml#1 NodePol/a: kind NodePol is not used by Karpless (did you mean NodePool?); pass --ignore-unknown to skip kinds Karpless does not read',
    ]);
    const set = parseManifests(typo, 'in.yaml', inputLimits({ ignoreUnknownKinds: true }));
    expect(set.warnings).toEqual(['in.yaml#1 NodePol/a: kind NodePol is not used by Karpless; skipped']);
  });

  it('refuses null, infinite and padded quantities', () => {
    const pod = (requests: string): string =>
      `apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: x, resources: {requests: ${requests}}}]}\n`;
    expect(problems(pod('{cpu: null}'))).toEqual([
      'in.yaml#1 Pod/p: spec.containers[0].resources.requests["cpu"]: must be a quantity (for example 500m, 2, 512Mi, 1Gi), got null',
    ]);
    expect(problems(pod('{cpu: 1e309}'))[0]).toMatch(/requests\["cpu"\]: Infinity is out of range/);
    expect(problems(pod('{cpu: "1e309"}'))[0]).toMatch(/requests\["cpu"\]: "1e309" is out of range/);
    expect(problems(pod('{memory: "1 "}'))[0]).toMatch(/requests\["memory"\]: "1 " is not a valid quantity/);
  });
});
