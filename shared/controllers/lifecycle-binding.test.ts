// Who binds, seen on the wire: the lifecycle runs on the real Kubernetes adapter against the fake API server, which
// records every request. By default Karpless only nominates and leaves the binding to kube-scheduler, as Karpenter
// does; with bindPods opted in it POSTs pods/binding itself once the node initializes (docs/kubernetes.md, "Binding").
import { describe, expect, it } from 'vitest';
import { node, pod, useKubeClusterBed } from '../../testkit/kube-cluster-bed';
import { fixtureClaim } from '../../testkit/sim-fixtures';
import type { NodeClaim } from '../api/nodeclaim';
import { createSimWorld } from '../sim/world';
import type { ControlPlaneConfig } from './deps';
import { reconcileNodes } from './lifecycle';

const bed = useKubeClusterBed();
const BINDING = '/api/v1/namespaces/default/pods/web/binding';

/** A registered claim whose Ready node is in the API server, with the pending pod `web` nominated to it. */
async function registeredClaimWithPendingPod(config: Partial<ControlPlaneConfig>) {
  const world = createSimWorld({ cluster: 'sim', seed: 1, instanceTypes: () => [], config });
  const deps = { ...world.deps, kube: bed.cluster };
  const n = node('n1');
  bed.api.put('nodes', n);
  bed.api.put('pods', pod('web'));
  let claim: NodeClaim = await world.store.create({
    ...fixtureClaim('general-abc'),
    nominatedPods: [{ namespace: 'default', name: 'web', uid: 'uid-web' }],
  });
  claim = await world.store.transition(claim, 'Launched', {
    instanceId: 'i-n1',
    providerID: n.spec.providerID,
    stateTimes: { Launched: world.clock.iso() },
  });
  await world.store.transition(claim, 'Registered', { nodeName: 'n1' });
  return deps;
}

describe('binding by default and opted in, against the Kubernetes API', () => {
  it('initializes the node without calling pods/binding by default', async () => {
    const deps = await registeredClaimWithPendingPod({});
    expect(deps.config.bindPods).toBe(false);
    const result = await reconcileNodes(deps);
    expect(result.initialized).toEqual(['general-abc']);
    expect(result.bound).toBe(0);
    expect(bed.api.requests.filter((r) => r.path.endsWith('/binding'))).toEqual([]);
    // Nor does it list pending pods, which only binding needs.
    expect(bed.api.requestsTo('GET', '/api/v1/pods').filter((r) => r.query.has('fieldSelector'))).toEqual([]);
    expect(bed.api.get<{ spec: { nodeName?: string } }>('pods', 'default', 'web')?.spec.nodeName).toBeUndefined();
  });

  it('POSTs a Binding for the nominated pod when bindPods is opted in', async () => {
    const deps = await registeredClaimWithPendingPod({ bindPods: true });
    const result = await reconcileNodes(deps);
    expect(result).toMatchObject({ initialized: ['general-abc'], bound: 1 });
    const [req] = bed.api.requestsTo('POST', BINDING);
    expect(req?.body).toMatchObject({ kind: 'Binding', target: { kind: 'Node', name: 'n1' } });
    expect(bed.api.get<{ spec: { nodeName?: string } }>('pods', 'default', 'web')?.spec.nodeName).toBe('n1');
  });
});
