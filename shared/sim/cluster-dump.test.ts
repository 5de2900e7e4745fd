// `simulate` on a cluster dump reads pods, NodePools and RuntimeClasses as the controller would (docs/simulate-dump.md).
import { describe, expect, it } from 'vitest';
import {
  dumpNode,
  dumpNodeClass,
  dumpNodePool,
  dumpPod,
  dumpYaml,
  newClaimPods,
  placedOn,
  simulateDump,
} from '../../testkit/dump';
import { problemsOf } from '../../testkit/manifests';

const base = [dumpNodePool(), dumpNodeClass];

describe('which pods a dump provisions for', () => {
  it('plans only unschedulable pods and pods without status; skips unseen, terminating and DaemonSet pods', async () => {
    const r = await simulateDump(
      dumpYaml([
        ...base,
        dumpPod({ name: 'unschedulable' }),
        dumpPod({ name: 'plain', state: 'none' }),
        dumpPod({ name: 'unseen', state: 'unseen' }),
        dumpPod({ name: 'terminating', terminating: true }),
        dumpPod({ name: 'ds-pod', ownerKind: 'DaemonSet' }),
        dumpPod({ name: 'done', state: 'Succeeded' }),
      ]),
    );
    expect(newClaimPods(r).sort()).toEqual(['plain', 'unschedulable']);
    expect(r.summary.pods).toBe(2);
    expect(r.warnings).toContain(
      '1 pod(s) not provisioned for: terminating (metadata.deletionTimestamp is set): default/terminating',
    );
    expect(r.warnings.some((w) => w.includes('has not marked it unschedulable') && w.endsWith('default/unseen'))).toBe(
      true,
    );
    expect(r.warnings.some((w) => w.includes('owned by a DaemonSet') && w.endsWith('default/ds-pod'))).toBe(true);
  });

  it('counts bound pods on their node, terminating ones included, and terminal ones nowhere', async () => {
    // n1 is an initialized m5.large (1930m): 1500m are held by a running and a terminating pod, a Failed pod
    // holds nothing, so a 400m pod fits and a second one does not.
    const r = await simulateDump(
      dumpYaml([
        ...base,
        dumpNode({ name: 'n1', initialized: true, karpenter: false }),
        dumpPod({ name: 'running', nodeName: 'n1', cpu: '1' }),
        dumpPod({ name: 'leaving', nodeName: 'n1', cpu: '500m', terminating: true }),
        dumpPod({ name: 'failed', nodeName: 'n1', cpu: '1', state: 'Failed' }),
        dumpPod({ name: 'new-0', cpu: '400m' }),
        dumpPod({ name: 'new-1', cpu: '400m' }),
      ]),
    );
    expect(placedOn(r, 'n1')).toHaveLength(1);
    expect(newClaimPods(r)).toHaveLength(1);
    expect(r.existingNodes[0]?.boundPods.map((p) => p.metadata.name)).toEqual(['running', 'leaving']);
  });

  it('does not count a terminating bound pod in topology spread', async () => {
    const labels = { app: 'web' };
    const spread = {
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: 'kubernetes.io/hostname',
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: labels },
        },
      ],
    };
    const r = await simulateDump(
      dumpYaml([
        ...base,
        dumpNode({ name: 'n1', initialized: true, type: 'm5.2xlarge' }),
        dumpNode({ name: 'n2', initialized: true, type: 'm5.2xlarge' }),
        dumpPod({ name: 'old', nodeName: 'n1', labels, spec: spread, terminating: true }),
        dumpPod({ name: 'web-0', labels, spec: spread }),
        dumpPod({ name: 'web-1', labels, spec: spread }),
      ]),
    );
    // With the terminating pod counted, n1 would start at 1 and take nothing; it does not count, so one pod each.
    expect([placedOn(r, 'n1').length, placedOn(r, 'n2').length]).toEqual([1, 1]);
  });
});

describe('NodePool status', () => {
  it('skips a NodePool whose status says Ready=False and names it in every unschedulable reason', async () => {
    const notReady = {
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'NodeClassNotReady',
          message: 'EC2NodeClass default is not ready',
          lastTransitionTime: '2026-11-25T00:00:00Z',
        },
      ],
    };
    const r = await simulateDump(dumpYaml([dumpNodePool({ status: notReady }), dumpNodeClass, dumpPod({ name: 'p' })]));
    expect(r.nodeClaims).toHaveLength(0);
    const why =
      'NodePool default skipped: status.conditions Ready=False (NodeClassNotReady: EC2NodeClass default is not ready)';
    expect(r.unschedulable[0]?.reason).toContain(why);
    expect(r.warnings).toContain(why);
  });

  it('plans on a NodePool whose status says Ready=True', async () => {
    const ready = {
      conditions: [
        { type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: '2026-11-25T00:00:00Z' },
      ],
    };
    const r = await simulateDump(dumpYaml([dumpNodePool({ status: ready }), dumpNodeClass, dumpPod({ name: 'p' })]));
    expect(newClaimPods(r)).toEqual(['p']);
  });
});

describe('RuntimeClass', () => {
  const runtimeClass = {
    apiVersion: 'node.k8s.io/v1',
    kind: 'RuntimeClass',
    metadata: { name: 'kata' },
    handler: 'kata',
    overhead: { podFixed: { cpu: '2' } },
  };

  it('should take pod runtime class into consideration', async () => {
    // suite_test.go Scheduling, translated: overhead.podFixed joins a pod that sets no overhead.
    const r = await simulateDump(
      dumpYaml([...base, runtimeClass, dumpPod({ name: 'p', cpu: '1', spec: { runtimeClassName: 'kata' } })]),
    );
    // 1 CPU + 2 CPU overhead needs more than an m5.large's 1930m.
    expect(r.nodeClaims[0]?.instanceType.name).toBe('m5.xlarge');
    expect(r.nodeClaims[0]?.plan.pods[0]?.spec.overhead).toEqual({ cpu: '2' });
  });

  it("keeps a pod's own spec.overhead", async () => {
    const r = await simulateDump(
      dumpYaml([
        ...base,
        runtimeClass,
        dumpPod({ name: 'p', cpu: '1', spec: { runtimeClassName: 'kata', overhead: { cpu: '100m' } } }),
      ]),
    );
    expect(r.nodeClaims[0]?.instanceType.name).toBe('m5.large');
  });

  it('warns, naming the field, when the RuntimeClass is not in the input', async () => {
    const r = await simulateDump(dumpYaml([...base, dumpPod({ name: 'p', spec: { runtimeClassName: 'gvisor' } })]));
    expect(r.warnings).toContain(
      'default/p: spec.runtimeClassName: RuntimeClass "gvisor" is not among the manifests; its overhead is not counted',
    );
  });
});

describe('bad dump input', () => {
  it('names the file, the object and the field path', () => {
    const problems = problemsOf(
      dumpYaml([
        {
          apiVersion: 'karpenter.sh/v1',
          kind: 'NodeClaim',
          metadata: { name: 'c1' },
          spec: { requirements: [{ key: 'x', operator: 'Near' }] },
          status: { conditions: [{ type: 'Initialized', status: 'Maybe' }] },
        },
        {
          apiVersion: 'storage.k8s.io/v1',
          kind: 'CSINode',
          metadata: { name: 'n1' },
          spec: { drivers: [{ name: 'ebs.csi.aws.com', allocatable: { count: -1 } }] },
        },
        {
          apiVersion: 'node.k8s.io/v1',
          kind: 'RuntimeClass',
          metadata: { name: 'kata' },
          overhead: { podFixed: { cpu: 'lots' } },
        },
        { ...dumpPod({ name: 'p' }), status: { phase: 'Waiting' } },
      ]),
      'dump.yaml',
    );
    const text = problems.join('\n');
    expect(text).toMatch(/NodeClaim\/c1.*spec\.requirements\[0\]\.operator/);
    expect(text).toMatch(/NodeClaim\/c1.*status\.conditions\[0\]\.status/);
    expect(text).toMatch(/CSINode\/n1.*spec\.drivers\[0\]\.allocatable\.count/);
    expect(text).toMatch(/RuntimeClass\/kata.*handler: required/);
    expect(text).toMatch(/RuntimeClass\/kata.*overhead\.podFixed/);
    expect(text).toMatch(/Pod\/p.*status\.phase/);
    expect(text).toContain('dump.yaml');
  });
});
