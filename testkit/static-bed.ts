// A test bed for static NodePools, read the way Karpenter's static controller suites read their cluster: a pool that
// already runs N initialized nodes, the pool's claims, and one reconcile (a provisioning pass, which runs both the
// static scale-up and the scale-down). Not part of any bundle.
import type { NodePool } from '../shared/api/karpenter';
import { LIVE_STATES, type NodeClaim } from '../shared/api/nodeclaim';
import { reconcileNodes } from '../shared/controllers/lifecycle';
import { provision } from '../shared/controllers/provision';
import { createTestbed, type Testbed, type TestbedOptions } from './bed';

/** Every live claim of the pool, draining ones included (what Karpenter's NodeClaim list holds). */
export async function poolClaims(t: Testbed, pool = 'static'): Promise<NodeClaim[]> {
  return (await t.store.list({ states: LIVE_STATES })).filter((c) => c.nodePool === pool);
}

/** The pool's claims not on their way out (Karpenter's "running" count). */
export async function activeClaims(t: Testbed, pool = 'static'): Promise<NodeClaim[]> {
  return (await poolClaims(t, pool)).filter((c) => c.state !== 'Draining');
}

/** Karpenter's ExpectObjectReconciled: one provisioning pass, as a NodePoolChanged hint runs it. */
export const reconcileStatic = (t: Testbed) => provision(t.deps, { trigger: 'NodePoolChanged' });

/** Runs queued messages and the node lifecycle for `ms` of virtual time: launched claims register and initialize,
 * terminations drain (Karpenter's ExpectMakeNodesAndNodeClaimsInitialized, and its termination controller). */
export async function settleNodes(t: Testbed, ms = 120_000): Promise<void> {
  for (let elapsed = 0; elapsed < ms; elapsed += 10_000) {
    await t.pump();
    await reconcileNodes(t.deps);
    t.clock.advance(10_000);
  }
  await t.pump();
}

/** A bed whose static pool runs `running` initialized nodes, after which the pool becomes `pool` (its replicas, its
 * limits) without a pass having run on it yet. */
export async function runningStaticBed(
  running: number,
  pool: NodePool,
  options: Omit<TestbedOptions, 'nodePool'> = {},
): Promise<Testbed> {
  const { limits: _limits, ...spec } = pool.spec;
  const t = createTestbed({ ...options, nodePool: { ...pool, spec: { ...spec, replicas: running } } });
  await reconcileStatic(t);
  await settleNodes(t);
  const states = (await poolClaims(t, pool.metadata.name)).map((c) => c.state);
  if (states.length !== running || states.some((s) => s !== 'Initialized')) {
    throw new Error(`runningStaticBed: expected ${running} Initialized claims, got ${states.join(', ') || 'none'}`);
  }
  t.cluster.upsert(pool);
  return t;
}
