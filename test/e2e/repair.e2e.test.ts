// Node repair through the real handlers: the forwarder sees the Node's condition change and sends NodeChanged (which
// repairs nothing), and the provisioner's Sweep tick terminates the node once its toleration has passed.
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalPipeline } from '../../local';
import type { NodePool } from '../../shared/api/karpenter';
import { DISRUPTION_SETTINGS_DEFAULTS } from '../../shared/disruption/settings';
import { makePod, testNodeClass, testNodePool } from '../../testkit/bed';
import { MINUTE, setNodeCondition } from '../../testkit/repair';
import { allBound, pipeline } from './helpers';

let p: LocalPipeline | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

describe('local pipeline: node repair', () => {
  it('repairs a node whose kubelet stopped reporting 30 minutes ago, and its pod runs again on a new node', async () => {
    p = await pipeline({
      objects: [testNodePool(), testNodeClass(), makePod('web-0', { cpu: '3', memory: '1Gi' })],
      config: { disruption: { ...DISRUPTION_SETTINGS_DEFAULTS, nodeRepair: true } },
    });
    const pipe = p;
    expect(await pipe.runUntil(allBound(pipe), 5 * MINUTE)).toBe(true);
    const [claim] = await pipe.store.list({ states: ['Initialized'] });
    if (!claim?.nodeName) throw new Error('no initialized claim');
    const brokenAt = pipe.clock.now();
    const sentBefore = pipe.timeline.filter((e) => e.kind === 'batch-sent' && e.text.startsWith('NodeChanged')).length;
    setNodeCondition(pipe, claim.nodeName, 'Ready', 'Unknown');

    const ended = async () => (await pipe.store.get(claim.name))?.state === 'Terminated';
    expect(await pipe.runUntil(ended, 40 * MINUTE)).toBe(true);
    // The forwarder carried the change as a NodeChanged hint; only the Sweep tick acted on it, after the toleration.
    const sentAfter = pipe.timeline.filter((e) => e.kind === 'batch-sent' && e.text.startsWith('NodeChanged')).length;
    expect(sentAfter).toBeGreaterThan(sentBefore);
    const drainedAt = Date.parse((await pipe.store.get(claim.name))?.stateTimes.Draining ?? '');
    expect(drainedAt - brokenAt).toBeGreaterThanOrEqual(30 * MINUTE);
    expect(drainedAt - brokenAt).toBeLessThanOrEqual(31 * MINUTE);
    const terminated = (await pipe.store.listDecisions(claim.name)).find((d) => d.kind === 'Terminate');
    expect(terminated?.detail).toMatchObject({
      cause: 'Unhealthy',
      reason: 'node condition Ready=Unknown for 30m (tolerated 30m)',
    });
    expect(pipe.sim.events.some((e) => e.reason === 'Disrupting' && e.message.includes('Unhealthy'))).toBe(true);

    expect(await pipe.runUntil(allBound(pipe), 5 * MINUTE)).toBe(true);
    const live = await pipe.store.list({ states: ['Initialized'] });
    expect(live.map((c) => c.name)).not.toContain(claim.name);
    expect(live).toHaveLength(1);
    expect(pipe.invocations.every((i) => i.failed === 0)).toBe(true);
    expect(pipe.queues.eventsDlq.size + pipe.queues.terminationDlq.size).toBe(0);
    // Forty virtual minutes of real handlers on dynalite: 12 s on a quiet machine, near 30 s on a loaded one, so the
    // harness limit is raised; nothing here measures speed.
  }, 90_000);
});

// aws/karpenter-provider-aws test/suites/integration/repair_policy_test.go: the node of a do-not-disrupt pod turns
// Ready=False 31 minutes in the past; the pod's node goes and the pod runs again, whatever holds voluntary disruption.
describe('test/suites/integration/repair_policy_test.go: Repair Policy, through the real handlers', () => {
  const withBudgetZero = (): NodePool => {
    const pool = testNodePool();
    pool.spec.disruption = { ...pool.spec.disruption, budgets: [{ nodes: '0' }] };
    return pool;
  };
  it.each([
    ['should ignore disruption budgets', withBudgetZero(), false],
    ['should ignore do-not-disrupt annotation on node', testNodePool(), true],
    [
      'should ignore terminationGracePeriod on the nodepool',
      testNodePool('default', undefined, { terminationGracePeriod: '1h' }),
      false,
    ],
  ] as const)('%s', async (_case, pool, annotateNode) => {
    p = await pipeline({
      objects: [
        pool,
        testNodeClass(),
        makePod('my-app-0', { cpu: '3', annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }),
      ],
      config: { disruption: { ...DISRUPTION_SETTINGS_DEFAULTS, nodeRepair: true } },
    });
    const pipe = p;
    expect(await pipe.runUntil(allBound(pipe), 5 * MINUTE)).toBe(true);
    const [claim] = await pipe.store.list({ states: ['Initialized'] });
    const node = claim?.nodeName;
    if (!claim || !node) throw new Error('no initialized claim');
    if (annotateNode) {
      pipe.sim.updateNode(node, (n) => ({
        ...n,
        metadata: { ...n.metadata, annotations: { ...n.metadata.annotations, 'karpenter.sh/do-not-disrupt': 'true' } },
      }));
    }
    const setAt = pipe.clock.now();
    setNodeCondition(pipe, node, 'Ready', 'False', setAt - 31 * MINUTE);

    const gone = async () => !(await pipe.sim.listNodes()).some((n) => n.metadata.name === node);
    expect(await pipe.runUntil(gone, 10 * MINUTE)).toBe(true);
    // Nothing waited: not the budget, not do-not-disrupt, not the hour of grace.
    expect(pipe.clock.now() - setAt).toBeLessThanOrEqual(5 * MINUTE);
    expect((await pipe.store.get(claim.name))?.disruption?.cause).toBe('Unhealthy');
    expect(await pipe.runUntil(allBound(pipe), 10 * MINUTE)).toBe(true);
    const pods = await pipe.sim.listPods();
    expect(pods.map((x) => [x.metadata.name, x.spec.nodeName === node])).toEqual([['my-app-0', false]]);
    expect(pipe.invocations.every((i) => i.failed === 0)).toBe(true);
  });
});
