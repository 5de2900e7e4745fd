import { describe, expect, it } from 'vitest';
import { createTestbed, makePod } from '../../testkit/bed';
import { provisionLines } from './provision-record';

describe('a Provision record, for one of its NodeClaims', () => {
  it('shows that claim’s pods, requests, options and price, and the rest of the plan in a line', async () => {
    // A real record, as the provisioner writes it: two pods too big to share a node, so the plan has two claims.
    const t = createTestbed();
    t.cluster.addPod(makePod('big-0', { cpu: '3', memory: '4Gi' }));
    t.cluster.addPod(makePod('big-1', { cpu: '3', memory: '4Gi' }));
    t.cluster.addPod(makePod('small-0', { cpu: '250m', memory: '256Mi' }));
    await t.settle(5_000);
    const claims = await t.store.list();
    const mine = claims.find((c) => c.nominatedPods.some((p) => p.name === 'small-0'));
    expect(mine).toBeDefined();
    const [record] = await t.store.listDecisions(mine?.name as string);
    expect(record?.kind).toBe('Provision');

    const lines = provisionLines(record?.detail ?? {}, mine?.name as string);
    const pods = mine?.nominatedPods.map((p) => `${p.namespace}/${p.name}`) ?? [];
    expect(lines[0]).toBe(`for ${pods.length} pod(s): ${pods.join(', ')}`);
    expect(lines[1]).toMatch(/^requests \(DaemonSets included\): cpu \S+, memory \S+/);
    const options = mine?.instanceTypeOptions ?? [];
    expect(lines[2]).toMatch(
      new RegExp(
        `^may launch as ${options.length} instance type\\(s\\), cheapest first: ${options[0]?.replace('.', '\\.')}, `,
      ),
    );
    expect(lines[3]).toMatch(/^priced at \S+ (spot|on-demand) in us-east-1[a-f], \$\d+\.\d{4}\/h/);
    const others = claims.filter((c) => c.name !== mine?.name).map((c) => c.name);
    expect(others.length).toBeGreaterThan(0);
    // The runner-up types the plan weighed, cheapest first.
    expect(lines[4]).toMatch(/^instead of: \S+ (spot|on-demand) in us-east-1[a-f] \$\d+\.\d{4}\/h/);
    expect(lines[5]).toMatch(/^same plan: /);
    for (const o of others) expect(lines[5]).toContain(o);
    expect(lines).toHaveLength(6);
  });

  it('names the first 8 other claims of a big plan', () => {
    const claims = Array.from({ length: 12 }, (_, i) => ({ name: `c${i}`, podCount: 1 }));
    expect(provisionLines({ claims }, 'c0')).toEqual([
      'for 1 pod(s)',
      'same plan: c1 (1 pod(s)), c2 (1 pod(s)), c3 (1 pod(s)), c4 (1 pod(s)), c5 (1 pod(s)), c6 (1 pod(s)), c7 (1 pod(s)), c8 (1 pod(s)) and 3 more',
    ]);
  });

  it('names what was left pending and what was skipped, and shows nothing for a claim it does not hold', () => {
    const lines = provisionLines(
      {
        claims: [],
        unschedulable: [{ pod: 'default/huge', reason: 'no instance type has enough cpu: pod requests 512' }],
        unavailableOfferings: 3,
        skippedNodePools: [{ nodePool: 'gpu', reason: 'EC2NodeClass gpu not found' }],
      },
      'default-abc12',
    );
    expect(lines).toEqual([
      'left pending: default/huge: no instance type has enough cpu: pod requests 512',
      'offerings skipped as recently unavailable (ICE): 3',
      'NodePool gpu skipped: EC2NodeClass gpu not found',
    ]);
  });
});
