import { describe, expect, it } from 'vitest';
import { createTestbed, makePod, testNodePool } from '../../testkit/bed';
import { nodeClaim } from '../../testkit/builders';
import { LabelCapacityType, LabelInstanceType } from '../api/labels';
import type { NodeClaim } from '../api/nodeclaim';
import { recordHistory } from '../disruption';
import type { DisruptionCommand, DisruptionPlan } from '../disruption/types';
import { disruptionSweep } from './disruption';
import { encodeCommand } from './disruption-command';
import { historyFrom } from './disruption-history';

const claim = (name: string, nodePool: string, disruption?: NodeClaim['disruption']): NodeClaim =>
  nodeClaim({ name, nodePool, ...(disruption ? { disruption } : {}) });

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

describe('historyFrom: one entry per command', () => {
  const now = Date.parse('2026-01-02T00:00:00Z');
  const at = '2026-01-01T12:00:00Z';

  it('counts a 3-into-1 merge once: removed 3, launched 1', () => {
    const merged = { cause: 'Underutilized' as const, at, replacements: ['r1'], commandId: 'cmd-1' };
    const history = historyFrom(
      [claim('a', 'web', merged), claim('b', 'web', merged), claim('c', 'web', merged), claim('r1', 'web')],
      now,
    );
    expect(history).toEqual({ web: [{ at: Date.parse(at), reason: 'Underutilized', removed: 3, launched: 1 }] });
  });

  it('groups claims written before commands were recorded on them by their shared replacements', () => {
    const merged = { cause: 'Underutilized' as const, at, replacements: ['r1'] };
    const alone = { cause: 'Underutilized' as const, at, replacements: ['r2'] };
    const history = historyFrom([claim('a', 'web', merged), claim('b', 'web', merged), claim('c', 'web', alone)], now);
    expect(history.web?.map((e) => [e.removed, e.launched])).toEqual([
      [2, 1],
      [1, 1],
    ]);
  });

  it('splits a command across NodePools as recordHistory does: each replacement counts for its own pool', () => {
    const merged = { cause: 'Underutilized' as const, at, replacements: ['r1'], commandId: 'cmd-1' };
    const history = historyFrom([claim('a', 'web', merged), claim('b', 'batch', merged), claim('r1', 'batch')], now);
    expect(history).toEqual({
      web: [{ at: Date.parse(at), reason: 'Underutilized', removed: 1, launched: 0 }],
      batch: [{ at: Date.parse(at), reason: 'Underutilized', removed: 1, launched: 1 }],
    });
  });

  it('agrees with recordHistory for a 3-into-1 merge carried out by the sweep', async () => {
    // c5.xlarge or c5.2xlarge: three 2.5-cpu pods take a c5.xlarge each (no two fit one), and one c5.2xlarge
    // holds all three for two thirds of the price.
    const nodePool = testNodePool('default', [
      { key: LabelInstanceType, operator: 'In', values: ['c5.xlarge', 'c5.2xlarge'] },
      { key: LabelCapacityType, operator: 'In', values: ['on-demand'] },
    ]);
    // The default budget (10 %) lets one of three nodes go at a time.
    nodePool.spec.disruption = { ...nodePool.spec.disruption, budgets: [{ nodes: '100%' }] };
    const t = createTestbed({ nodePool });
    for (const name of ['web-0', 'web-1', 'web-2']) {
      t.cluster.addPod(makePod(name, { cpu: '2500m', memory: '512Mi' }));
      await t.settle(60_000);
    }
    const nodes = await t.store.list({ states: ['Initialized'] });
    expect(nodes.map((c) => c.instanceType)).toEqual(['c5.xlarge', 'c5.xlarge', 'c5.xlarge']);

    let plan: DisruptionPlan | undefined;
    for (let i = 0; i < 20 && !(await t.store.list({ states: ['Terminated'] })).length; i++) {
      const out = await disruptionSweep(t.deps);
      if (out.plan?.commands.length) plan ??= out.plan;
      await t.settle(30_000);
    }
    await t.settle(60_000);
    const [command] = plan?.commands ?? [];
    expect(command?.candidates).toHaveLength(3);
    expect(command?.replacements).toHaveLength(1);
    const terminated = await t.store.list({ states: ['Terminated'] });
    expect(terminated.map((c) => c.name).sort()).toEqual(nodes.map((c) => c.name).sort());

    const fromClaims = historyFrom(await t.store.list(), t.clock.now());
    const inProcess = recordHistory({}, plan as DisruptionPlan);
    const withoutTime = (h: typeof inProcess) =>
      Object.fromEntries(Object.entries(h).map(([pool, es]) => [pool, es.map(({ at: _at, ...e }) => e)]));
    expect(withoutTime(fromClaims)).toEqual(withoutTime(inProcess));
    expect(withoutTime(fromClaims)).toEqual({ default: [{ reason: 'Underutilized', removed: 3, launched: 1 }] });
    // The claims date the command from when termination began: after the decision, before now.
    const [entry] = fromClaims.default ?? [];
    expect(entry?.at).toBeGreaterThanOrEqual(plan?.at ?? Number.POSITIVE_INFINITY);
    expect(entry?.at).toBeLessThanOrEqual(t.clock.now());
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
  it('writes the decided command on its candidate and validates it only on a sweep 15 s later, less half a second of clock skew', async () => {
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

    // Due within the clock-skew tolerance: a re-check relayed by a Lambda whose clock runs a little behind.
    t.clock.advance(600);
    const due = await disruptionSweep(t.deps, { progressOnly: true });
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

describe("Karpenter's disruption events", () => {
  const events = (t: ReturnType<typeof createTestbed>, reason: string) =>
    t.cluster.events
      .filter((e) => e.reason === reason)
      .map((e) => `${e.type} ${e.involved.kind} ${e.involved.name}: ${e.message}`);

  it('a replacing command: DisruptionLaunching and DisruptionWaitingReadiness on the replacement, then DisruptionTerminating on each candidate', async () => {
    // Three c5.xlarge nodes (no two 2.5-cpu pods fit one) that one c5.2xlarge replaces.
    const nodePool = testNodePool('default', [
      { key: LabelInstanceType, operator: 'In', values: ['c5.xlarge', 'c5.2xlarge'] },
      { key: LabelCapacityType, operator: 'In', values: ['on-demand'] },
    ]);
    nodePool.spec.disruption = { ...nodePool.spec.disruption, budgets: [{ nodes: '100%' }] };
    const t = createTestbed({ nodePool });
    for (const name of ['web-0', 'web-1', 'web-2']) {
      t.cluster.addPod(makePod(name, { cpu: '2500m', memory: '512Mi' }));
      await t.settle(60_000);
    }
    const originals = await t.store.list({ states: ['Initialized'] });
    expect(originals).toHaveLength(3);
    const first = await disruptionSweep(t.deps);
    expect(first.plan?.commands.map((c) => [c.reason, c.candidates.length, c.replacements.length])).toEqual([
      ['Underutilized', 3, 1],
    ]);
    t.clock.advance(15_000);
    const acted = await disruptionSweep(t.deps, { progressOnly: true });
    expect(acted.started).toEqual(first.decided);
    const known = new Set(originals.map((c) => c.name));
    const [replacement] = (await t.store.list()).filter((c) => !known.has(c.name));
    if (!replacement) throw new Error('no replacement launched');
    expect(events(t, 'DisruptionLaunching')).toEqual([
      `Normal NodeClaim ${replacement.name}: Launching NodeClaim: Underutilized`,
    ]);
    expect(events(t, 'DisruptionWaitingReadiness')).toEqual([
      `Normal NodeClaim ${replacement.name}: Waiting on readiness to continue disruption`,
    ]);
    // Nothing terminates while the replacement is not initialized.
    expect(events(t, 'DisruptionTerminating')).toEqual([]);
    const waiting = await disruptionSweep(t.deps, { progressOnly: true });
    expect(waiting.terminating).toEqual([]);
    expect(events(t, 'DisruptionWaitingReadiness')).toHaveLength(2);

    await t.settle(60_000);
    await disruptionSweep(t.deps, { progressOnly: true });
    expect(events(t, 'DisruptionTerminating').sort()).toEqual(
      originals
        .flatMap((c) => [
          `Normal Node ${c.nodeName}: Disrupting Node: Underutilized`,
          `Normal NodeClaim ${c.name}: Disrupting NodeClaim: Underutilized`,
        ])
        .sort(),
    );
  });

  it('a command without replacements terminates at once: DisruptionTerminating, no waiting on readiness', async () => {
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
    if (!node) throw new Error('no initialized node');
    t.cluster.deletePod('default/web-0');
    await disruptionSweep(t.deps);
    t.clock.advance(15_000);
    await disruptionSweep(t.deps, { progressOnly: true });
    expect(events(t, 'DisruptionTerminating')).toEqual([
      `Normal Node ${node.nodeName}: Disrupting Node: Empty`,
      `Normal NodeClaim ${node.name}: Disrupting NodeClaim: Empty`,
    ]);
    expect(events(t, 'DisruptionLaunching')).toEqual([]);
    expect(events(t, 'DisruptionWaitingReadiness')).toEqual([]);
  });
});
