import { describe, expect, it } from 'vitest';
import type { NodeClaim } from '../api/nodeclaim';
import type { DisruptionCommand } from '../disruption/types';
import { disruptionSweep, encodeCommand, historyFrom } from './disruption';
import { createTestbed, makePod, testNodePool } from './testing';

const claim = (name: string, nodePool: string, disruption?: NodeClaim['disruption']): NodeClaim =>
  ({ name, nodePool, ...(disruption ? { disruption } : {}) }) as NodeClaim;

describe('historyFrom', () => {
  it('counts commands of the last 24 h by NodePool, never in-flight ones or other causes', () => {
    const now = Date.parse('2026-01-02T00:00:00Z');
    const history = historyFrom(
      [
        claim('a', 'web', { cause: 'Underutilized', at: '2026-01-01T12:00:00Z', replacements: ['r1'] }),
        claim('b', 'web', { cause: 'Empty', at: '2026-01-01T06:00:00Z' }),
        claim('c', 'web', { cause: 'Empty', at: '2025-12-31T06:00:00Z' }),
        claim('d', 'web', { cause: 'Interrupted', at: '2026-01-01T12:00:00Z' }),
        claim('e', 'batch', { cause: 'Empty', at: '2026-01-01T12:00:00Z', phase: 'Validating' }),
        claim('f', 'batch'),
      ],
      now,
    );
    expect(history).toEqual({
      web: [
        { at: Date.parse('2026-01-01T06:00:00Z'), reason: 'Empty', removed: 1, launched: 0 },
        { at: Date.parse('2026-01-01T12:00:00Z'), reason: 'Underutilized', removed: 1, launched: 1 },
      ],
    });
  });
});

describe('encodeCommand', () => {
  it('keeps replacements by instance type and pod name only', () => {
    const command = {
      id: 'cmd-1',
      reason: 'Underutilized',
      forceful: false,
      candidates: [],
      moves: {},
      savingPerHour: 0.1,
      record: {
        id: 'r',
        cluster: 'c',
        at: '2026-01-01T00:00:00Z',
        kind: 'Disrupt',
        nodeClaims: [],
        summary: 's',
        detail: { big: 1 },
      },
      replacements: [
        {
          name: 'n1',
          instanceTypeOptions: [{ name: 'm5.large', offerings: [{ zone: 'a' }] }],
          pods: [makePod('web-0')],
        },
      ],
    } as unknown as DisruptionCommand;
    const decoded = JSON.parse(encodeCommand(command)) as DisruptionCommand;
    expect(decoded.replacements[0]?.instanceTypeOptions).toEqual([{ name: 'm5.large' }]);
    expect(decoded.replacements[0]?.pods).toEqual([{ metadata: { namespace: 'default', name: 'web-0' } }]);
    expect(decoded.record.detail).toEqual({});
    expect(decoded.record.summary).toBe('s');
  });
});

describe('disruptionSweep', () => {
  it('writes the decided command on its candidate and validates it only on a sweep 15 s or more later', async () => {
    const nodePool = testNodePool();
    nodePool.spec.disruption = {
      ...nodePool.spec.disruption,
      consolidationPolicy: 'WhenEmpty',
      consolidateAfter: '0s',
    };
    const t = createTestbed({ nodePool });
    t.cluster.addPod(makePod('web-0', { cpu: '250m', memory: '256Mi' }));
    await t.settle(60_000);
    const [node] = await t.store.list({ states: ['Initialized'] });
    t.cluster.deletePod('default/web-0');

    const first = await disruptionSweep(t.deps);
    expect(first.decided).toHaveLength(1);
    expect(first.inflight).toBe(1);
    expect(first.nextValidationAt).toBe(t.clock.now() + 15_000);
    expect((await t.store.get(node?.name ?? ''))?.disruption?.phase).toBe('Validating');

    t.clock.advance(14_000);
    const early = await disruptionSweep(t.deps);
    expect(early.started).toEqual([]);
    expect(early.decided).toEqual([]);

    t.clock.advance(1_000);
    const due = await disruptionSweep(t.deps);
    expect(due.started).toEqual(first.decided);
    expect(due.terminating).toEqual(first.decided);
    expect(due.inflight).toBe(0);
    expect((await t.store.get(node?.name ?? ''))?.state).toBe('Draining');
  });

  it('releases a claim whose stored command cannot be read back, without failing the sweep', async () => {
    const t = createTestbed();
    t.cluster.addPod(makePod('web-0', { cpu: '250m', memory: '256Mi' }));
    await t.settle(60_000);
    const [node] = await t.store.list({ states: ['Initialized'] });
    if (!node) throw new Error('no initialized node');
    const at = new Date(t.clock.now()).toISOString();
    await t.store.update(node, {
      disruption: { cause: 'Empty', at, phase: 'Validating', commandId: 'x', validateAfter: at, command: '{not json' },
    });
    const out = await disruptionSweep(t.deps);
    expect(out.started).toEqual([]);
    expect((await t.store.get(node.name))?.disruption).toBeUndefined();
  });
});
