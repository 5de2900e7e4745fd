// The simulated cluster's kube-scheduler: it binds a nominated pod only when kube-scheduler's filters would let it.
import { describe, expect, it } from 'vitest';
import { pod } from '../../testkit/builders';
import type { Node, Pod, Taint } from '../api/kube';
import { LabelNodeClaim } from '../api/labels';
import { SimCluster } from './sim-cluster';
import { nominationTarget } from './sim-scheduler';
import { VirtualClock } from './virtual-clock';

const readyNode = (
  name: string,
  o: { labels?: Record<string, string>; taints?: Taint[]; cpu?: string } = {},
): Node => ({
  kind: 'Node',
  metadata: { name, labels: { 'kubernetes.io/hostname': name, ...o.labels } },
  spec: { taints: o.taints ?? [] },
  status: {
    allocatable: { cpu: o.cpu ?? '2', memory: '8Gi', pods: '110' },
    conditions: [{ type: 'Ready', status: 'True' }],
  },
});

function setup(kubeScheduler?: boolean) {
  const cluster = new SimCluster({
    clock: new VirtualClock(0),
    ...(kubeScheduler === undefined ? {} : { kubeScheduler }),
  });
  const nominate = (p: Pod, target: string) =>
    cluster.recordEvent({
      involved: { kind: 'Pod', name: p.metadata.name, namespace: 'default' },
      type: 'Normal',
      reason: 'Nominated',
      message: `Pod should schedule on: ${target}`,
    });
  const nodeOf = (p: Pod) => cluster.getPod(`default/${p.metadata.name}`)?.spec.nodeName;
  return { cluster, nominate, nodeOf };
}

describe('SimScheduler', () => {
  it('reads the target of a Karpenter-style Nominated message', () => {
    expect(nominationTarget('Pod should schedule on: nodeclaim/general-x7k2p')).toBe('nodeclaim/general-x7k2p');
    expect(nominationTarget('Pod should schedule on: node/ip-10-0-0-1.ec2.internal')).toBe(
      'node/ip-10-0-0-1.ec2.internal',
    );
    expect(nominationTarget('Pod should schedule on node x')).toBeUndefined();
  });

  it('binds a pod nominated to a running node at once', async () => {
    const { cluster, nominate, nodeOf } = setup();
    cluster.addNode(readyNode('n1'));
    const web = pod({ name: 'web', cpu: '1' });
    cluster.addPod(web);
    await nominate(web, 'node/n1');
    expect(nodeOf(web)).toBe('n1');
  });

  it('waits for a claim’s node until Karpless registered it (its nodeclaim label), then binds when Ready', async () => {
    const { cluster, nominate, nodeOf } = setup();
    const web = pod({ name: 'web', cpu: '1' });
    cluster.addPod(web);
    await nominate(web, 'nodeclaim/general-abc');
    const node = readyNode('n1');
    node.status = { ...node.status, conditions: [{ type: 'Ready', status: 'False' }] };
    cluster.addNode(node);
    expect(nodeOf(web)).toBeUndefined();
    // Registration labels the node with its claim; it is still not Ready.
    await cluster.syncNode('n1', { labels: { [LabelNodeClaim]: 'general-abc' }, taints: [] });
    expect(nodeOf(web)).toBeUndefined();
    cluster.updateNode('n1', (n) => ({
      ...n,
      status: { ...n.status, conditions: [{ type: 'Ready', status: 'True' }] },
    }));
    expect(nodeOf(web)).toBe('n1');
  });

  it('leaves the pod pending on an untolerated taint, a cordon, a node selector it misses, or too little room', async () => {
    const { cluster, nominate, nodeOf } = setup();
    const startup = { key: 'node.cilium.io/agent-not-ready', effect: 'NoExecute' as const };
    cluster.addNode(readyNode('tainted', { taints: [startup] }));
    cluster.addNode({ ...readyNode('cordoned'), spec: { unschedulable: true } });
    cluster.addNode(readyNode('amd', { labels: { 'kubernetes.io/arch': 'amd64' } }));
    cluster.addNode(readyNode('small', { cpu: '1' }));
    const a = pod({ name: 'a', cpu: '100m' });
    const b = pod({ name: 'b', cpu: '100m' });
    const c = pod({ name: 'c', cpu: '100m', nodeSelector: { 'kubernetes.io/arch': 'arm64' } });
    const d = pod({ name: 'd', cpu: '2' });
    for (const p of [a, b, c, d]) cluster.addPod(p);
    await nominate(a, 'node/tainted');
    await nominate(b, 'node/cordoned');
    await nominate(c, 'node/amd');
    await nominate(d, 'node/small');
    expect([a, b, c, d].map(nodeOf)).toEqual([undefined, undefined, undefined, undefined]);
    // The startup taint goes: the pod nominated there follows.
    cluster.updateNode('tainted', (n) => ({ ...n, spec: { ...n.spec, taints: [] } }));
    expect(nodeOf(a)).toBe('tainted');
  });

  it('counts what is already bound and binds again when a pod leaves the node', async () => {
    const { cluster, nominate, nodeOf } = setup();
    cluster.addNode(readyNode('n1', { cpu: '2' }));
    const first = pod({ name: 'first', cpu: '1500m' });
    const second = pod({ name: 'second', cpu: '1' });
    cluster.addPod(first);
    cluster.addPod(second);
    await nominate(first, 'node/n1');
    await nominate(second, 'node/n1');
    expect([nodeOf(first), nodeOf(second)]).toEqual(['n1', undefined]);
    cluster.deletePod('default/first');
    expect(nodeOf(second)).toBe('n1');
  });

  it('binds nothing when turned off: only bindPod callers bind', async () => {
    const { cluster, nominate, nodeOf } = setup(false);
    cluster.addNode(readyNode('n1'));
    const web = pod({ name: 'web', cpu: '1' });
    cluster.addPod(web);
    await nominate(web, 'node/n1');
    expect(nodeOf(web)).toBeUndefined();
    expect(await cluster.bindPod({ namespace: 'default', name: 'web' }, 'n1')).toBe('bound');
  });
});
