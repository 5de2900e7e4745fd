// Karpenter's pkg/controllers/provisioning/scheduling/suite_test.go "In-Flight Nodes", translated to what a cluster
// dump shows: Karpenter's NodeClaims and Nodes as `kubectl get -o yaml` prints them, run through `simulate`'s own
// path (testkit/dump.ts). Each test names the Describe / Context and It it mirrors.
import { describe, expect, it } from 'vitest';
import {
  dumpNode,
  dumpNodeClaim,
  dumpNodeClass,
  dumpNodePool,
  dumpPod,
  dumpYaml,
  newClaimPods,
  placedOn,
  simulateDump,
} from '../../../testkit/dump';

const S = 'suite_test.go Scheduling In-Flight Nodes';
const base = [dumpNodePool(), dumpNodeClass];
const startup = { key: 'foo.com/taint', value: 'tainted', effect: 'NoSchedule' as const };

describe(S, () => {
  it('should not launch a second node if there is an in-flight node that can support the pod', async () => {
    const r = await simulateDump(
      dumpYaml([...base, dumpNodeClaim({ name: 'default-a1' }), dumpPod({ name: 'second', cpu: '10m' })]),
    );
    expect(r.nodeClaims).toHaveLength(0);
    expect(placedOn(r, 'default-a1')).toEqual(['second']);
  });

  it('should not launch a second node if there is an in-flight node that can support the pod (node selectors)', async () => {
    const zones = (values: string[]) => ({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values }] }],
          },
        },
      },
    });
    const r = await simulateDump(
      dumpYaml([
        ...base,
        dumpNodeClaim({ name: 'default-b1', zone: 'us-east-1b' }),
        dumpPod({ name: 'second', cpu: '10m', spec: zones(['us-east-1a', 'us-east-1b']) }),
        dumpPod({ name: 'third', cpu: '10m', spec: zones(['us-east-1a', 'us-east-1c']) }),
      ]),
    );
    expect(placedOn(r, 'default-b1')).toEqual(['second']);
    expect(newClaimPods(r)).toEqual(['third']);
  });

  it("should launch a second node if a pod won't fit on the existingNodes node", async () => {
    // An m5.large offers 1930m: the in-flight claim cannot take a 2-CPU pod.
    const r = await simulateDump(
      dumpYaml([...base, dumpNodeClaim({ name: 'default-a1' }), dumpPod({ name: 'big', cpu: '2' })]),
    );
    expect(placedOn(r, 'default-a1')).toEqual([]);
    expect(newClaimPods(r)).toEqual(['big']);
  });

  it('should launch a second node if an in-flight node is terminating', async () => {
    const r = await simulateDump(
      dumpYaml([
        ...base,
        dumpNodeClaim({ name: 'default-a1', deleting: true }),
        dumpPod({ name: 'second', cpu: '10m' }),
      ]),
    );
    expect(r.existingNodes.map((n) => n.name)).not.toContain('default-a1');
    expect(newClaimPods(r)).toEqual(['second']);
  });

  it('should not count a NodeClaim that has not launched (no providerID) as capacity', async () => {
    // Karpenter's cluster state tracks a NodeClaim only once it has a providerID (state/cluster.go UpdateNodeClaim).
    const r = await simulateDump(
      dumpYaml([...base, dumpNodeClaim({ name: 'default-a1', launched: false }), dumpPod({ name: 'p', cpu: '10m' })]),
    );
    expect(newClaimPods(r)).toEqual(['p']);
    expect(r.warnings.some((w) => w.startsWith('NodeClaim/default-a1: status.providerID is empty'))).toBe(true);
  });

  it('should order initialized nodes for scheduling uninitialized nodes when all other nodes are inflight', async () => {
    const claims = ['n1', 'n2', 'n3', 'n4'].map((n) => dumpNodeClaim({ name: `claim-${n}`, nodeName: n }));
    const nodes = ['n1', 'n2', 'n3', 'n4'].map((n) => dumpNode({ name: n, initialized: n === 'n3' }));
    const r = await simulateDump(dumpYaml([...base, ...claims, ...nodes, dumpPod({ name: 'p', cpu: '10m' })]));
    expect(placedOn(r, 'n3')).toEqual(['p']);
    expect(r.existingNodes.filter((n) => n.inflight).map((n) => n.name)).toEqual(['n1', 'n2', 'n4']);
  });
});

describe(`${S} Taints`, () => {
  const notReady = { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' as const };

  it('should assume pod will schedule to a node with ephemeral taint node.kubernetes.io/not-ready:NoExecute when the node is uninitialized', async () => {
    const uninitialized = await simulateDump(
      dumpYaml([
        ...base,
        dumpNodeClaim({ name: 'claim-n1', nodeName: 'n1' }),
        dumpNode({ name: 'n1', taints: [notReady] }),
        dumpPod({ name: 'second', cpu: '10m' }),
      ]),
    );
    expect(placedOn(uninitialized, 'n1')).toEqual(['second']);
    expect(uninitialized.nodeClaims).toHaveLength(0);

    // Once initialized, the same taint is respected: the pod gets a node of its own.
    const initialized = await simulateDump(
      dumpYaml([
        ...base,
        dumpNodeClaim({ name: 'claim-n1', nodeName: 'n1' }),
        dumpNode({ name: 'n1', taints: [notReady], initialized: true }),
        dumpPod({ name: 'third', cpu: '10m' }),
      ]),
    );
    expect(placedOn(initialized, 'n1')).toEqual([]);
    expect(newClaimPods(initialized)).toEqual(['third']);
  });

  it('should not assume pod will schedule to a tainted node', async () => {
    const r = await simulateDump(
      dumpYaml([
        ...base,
        dumpNodeClaim({ name: 'claim-n1', nodeName: 'n1' }),
        dumpNode({ name: 'n1', initialized: true, taints: [startup] }),
        dumpPod({ name: 'second', cpu: '10m' }),
      ]),
    );
    expect(newClaimPods(r)).toEqual(['second']);
  });

  it('should assume pod will schedule to a tainted node with a custom startup taint', async () => {
    const r = await simulateDump(
      dumpYaml([
        dumpNodePool({ startupTaints: [startup] }),
        dumpNodeClass,
        dumpNodeClaim({ name: 'claim-n1', nodeName: 'n1', startupTaints: [startup] }),
        dumpNode({ name: 'n1', taints: [startup, { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] }),
        dumpPod({ name: 'second', cpu: '10m' }),
      ]),
    );
    expect(placedOn(r, 'n1')).toEqual(['second']);
    expect(r.nodeClaims).toHaveLength(0);
  });

  it('should not assume pod will schedule to a node with startup taints after initialization', async () => {
    const r = await simulateDump(
      dumpYaml([
        dumpNodePool({ startupTaints: [startup] }),
        dumpNodeClass,
        dumpNodeClaim({ name: 'claim-n1', nodeName: 'n1', startupTaints: [startup] }),
        dumpNode({ name: 'n1', initialized: true, taints: [startup] }),
        dumpPod({ name: 'second', cpu: '10m' }),
      ]),
    );
    expect(placedOn(r, 'n1')).toEqual([]);
    expect(newClaimPods(r)).toEqual(['second']);
  });

  it('should assume pod will schedule to a tainted node with no taints', async () => {
    const r = await simulateDump(
      dumpYaml([
        ...base,
        dumpNodeClaim({ name: 'claim-n1', nodeName: 'n1' }),
        dumpNode({ name: 'n1', initialized: true }),
        dumpPod({ name: 'second', cpu: '10m' }),
      ]),
    );
    expect(placedOn(r, 'n1')).toEqual(['second']);
  });

  it('should treat the unregistered and unreachable taints of an uninitialized Karpenter node without its NodeClaim as ephemeral', async () => {
    // A dump of Nodes alone: a Karpenter Node (karpenter.sh/nodepool) without karpenter.sh/initialized is in flight.
    const r = await simulateDump(
      dumpYaml([
        ...base,
        dumpNode({
          name: 'n1',
          taints: [
            { key: 'karpenter.sh/unregistered', effect: 'NoExecute' },
            { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
          ],
        }),
        dumpPod({ name: 'p', cpu: '10m' }),
      ]),
    );
    expect(placedOn(r, 'n1')).toEqual(['p']);
    expect(r.existingNodes[0]?.inflight).toBe(true);
  });

  it('should respect not-ready on a node Karpenter does not manage', async () => {
    // Karpenter counts nodes it did not launch as initialized: their taints always apply.
    const r = await simulateDump(
      dumpYaml([
        ...base,
        dumpNode({
          name: 'mng-1',
          karpenter: false,
          taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }],
        }),
        dumpPod({ name: 'p', cpu: '10m' }),
      ]),
    );
    expect(placedOn(r, 'mng-1')).toEqual([]);
    expect(newClaimPods(r)).toEqual(['p']);
  });
});

describe(`${S} Topology`, () => {
  it('should balance pods across zones with in-flight nodes', async () => {
    const labels = { foo: 'bar' };
    const spread = {
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: 'topology.kubernetes.io/zone',
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: labels },
        },
      ],
    };
    const zones = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
    const objects = [
      ...base,
      ...zones.map((zone, i) => dumpNodeClaim({ name: `claim-${i}`, nodeName: `n${i}`, zone, type: 'm5.2xlarge' })),
      ...zones.map((zone, i) => dumpNode({ name: `n${i}`, zone, type: 'm5.2xlarge' })),
      // The first round: 1, 1 and 2 pods already bound to the in-flight nodes.
      ...['n0', 'n1', 'n2', 'n2'].map((n, i) => dumpPod({ name: `bound-${i}`, nodeName: n, labels, spec: spread })),
      ...[0, 1, 2, 3, 4].map((i) => dumpPod({ name: `new-${i}`, labels, spec: spread })),
    ];
    const r = await simulateDump(dumpYaml(objects));
    // The in-flight nodes hold the second round: 3 pods per zone, and nothing new is launched.
    expect(r.nodeClaims).toHaveLength(0);
    expect(['n0', 'n1', 'n2'].map((n) => placedOn(r, n).length)).toEqual([2, 2, 1]);
  });
});
