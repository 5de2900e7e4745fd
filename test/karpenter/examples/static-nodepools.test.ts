// The NodePool examples of karpenter.sh's NodePools page (concepts/nodepools.md) that set `spec.replicas`, unchanged
// (test/fixtures/karpenter-examples/README.md). Karpenter's NodePool CRD rejects all three as printed: none of the
// static ones has the required spec.template.spec.nodeClassRef, the limits example limits cpu and memory on a static
// pool, and the reference example sets weight on a static pool and writes the alternatives of several fields as
// "a | b". Karpless rejects each for the same reasons, naming the fields. With the one line Karpenter also needs (a
// nodeClassRef), the static example keeps exactly its 10 replicas in us-west-2a whatever the pods.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  catalogInRegion,
  docsExample,
  example,
  exampleText,
  loadSimulator,
  scratch,
  simulateFiles,
} from '../../../testkit/karpenter-examples';

const write = scratch('examples-static');
const page = (name: string) => docsExample(`concepts/nodepools/${name}`);
const problemsOf = (stderr: string, file: string) =>
  stderr
    .trim()
    .split('\n')
    .map((l) => l.slice(l.indexOf(file)));

beforeAll(loadSimulator);

describe('karpenter.sh concepts/nodepools.md static NodePools, unchanged', () => {
  it('static-capacity: rejected, as the NodePool CRD requires spec.template.spec.nodeClassRef', async () => {
    const r = await simulateFiles([page('static-nodepool')]);
    expect(r.code).toBe(2);
    expect(problemsOf(r.stderr, 'static-nodepool.yaml')).toEqual([
      'static-nodepool.yaml#1 NodePool/static-capacity: spec.template.spec.nodeClassRef: required',
    ]);
  });

  it('static-capacity with a nodeClassRef: exactly 10 nodes of m5.large or m5.xlarge in us-west-2a, with no pods', async () => {
    const text = exampleText(page('static-nodepool'));
    const withRef = text.replace(
      '    spec:\n',
      '    spec:\n      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }\n',
    );
    expect(withRef).not.toBe(text);
    const catalog = catalogInRegion(write, 'us-west-2');
    // examples/v1/general-purpose.yaml brings the EC2NodeClass `default` (and a dynamic pool that stays empty).
    const files = [write('static.yaml', withRef), example('examples/v1/general-purpose.yaml')];
    const r = await simulateFiles(files, '--catalog', catalog);
    expect(r.code, r.stderr).toBe(0);
    const claims = r.out?.nodeClaims ?? [];
    expect(claims.length).toBe(10);
    for (const c of claims) {
      expect(c.nodePool).toBe('static-capacity');
      expect(c.zone).toBe('us-west-2a');
      expect(['m5.large', 'm5.xlarge']).toContain(c.instanceType);
      expect(c.pods).toEqual([]);
    }
  });

  it("limits: rejected for the missing nodeClassRef and because 'only limits.nodes is supported on static NodePools'", async () => {
    const r = await simulateFiles([page('limits')]);
    expect(r.code).toBe(2);
    expect(problemsOf(r.stderr, 'limits.yaml')).toEqual([
      'limits.yaml#1 NodePool/default: spec.template.spec.nodeClassRef: required',
      "limits.yaml#1 NodePool/default: spec.limits: only 'limits.nodes' is supported on static NodePools",
    ]);
  });

  it('the reference NodePool: rejected for the "a | b" values, and weight and cpu/memory limits on a static pool', async () => {
    const r = await simulateFiles([page('nodepool-reference')]);
    expect(r.code).toBe(2);
    expect(problemsOf(r.stderr, 'nodepool-reference.yaml')).toEqual([
      'nodepool-reference.yaml#1 NodePool/default: spec.template.spec.expireAfter: "720h | Never" is not a valid duration (for example 30s, 5m, 720h or Never)',
      'nodepool-reference.yaml#1 NodePool/default: spec.disruption.consolidationPolicy: "WhenEmptyOrUnderutilized | Balanced | WhenEmpty" is not one of WhenEmpty, WhenEmptyOrUnderutilized, Balanced',
      'nodepool-reference.yaml#1 NodePool/default: spec.disruption.consolidateAfter: "1m | Never" is not a valid duration (for example 30s, 5m, 720h or Never)',
      "nodepool-reference.yaml#1 NodePool/default: spec.weight: 'weight' is not supported on static NodePools",
      "nodepool-reference.yaml#1 NodePool/default: spec.limits: only 'limits.nodes' is supported on static NodePools",
    ]);
  });
});
