// The 15 s re-check: a command decided on one snapshot is dropped when the fresh snapshot shows a new blocker.
import { describe, expect, it } from 'vitest';
import { boundPod, disruptionInput, HOUR, node, pdb, pool, T0 } from '../../testkit/disruption';
import { planDisruption } from './plan';
import type { DisruptionCommand } from './types';
import { VALIDATION_DELAY_MS, validate } from './validate';

const p = pool();
const later = T0 + VALIDATION_DELAY_MS;

function consolidationCommand(): DisruptionCommand {
  const big = node('big', { pool: p, type: 'm5.2xlarge', cpus: ['2', '2'] });
  const small = node('small', { pool: p, cpus: ['1'] });
  const plan = planDisruption(disruptionInput([big, small], { nodePools: [p] }));
  return plan.commands[0] as DisruptionCommand;
}

describe('validate', () => {
  it('keeps a command whose world did not change', () => {
    const cmd = consolidationCommand();
    const fresh = disruptionInput(
      [node('big', { pool: p, type: 'm5.2xlarge', cpus: ['2', '2'] }), node('small', { pool: p, cpus: ['1'] })],
      { nodePools: [p], now: later },
    );
    expect(validate(cmd, fresh)).toEqual({ command: cmd, blockers: [] });
  });

  it('aborts when a do-not-disrupt pod appeared on a candidate', () => {
    const cmd = consolidationCommand();
    const dnd = boundPod('small', '100m', '64Mi', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
    const fresh = disruptionInput(
      [
        node('big', { pool: p, type: 'm5.2xlarge', cpus: ['2', '2'] }),
        node('small', { pool: p, cpus: ['1'], pods: [dnd] }),
      ],
      { nodePools: [p], now: later },
    );
    const r = validate(cmd, fresh);
    expect(r.command).toBeUndefined();
    expect(r.blockers[0]).toMatch(/small: pod default\/.* has karpenter.sh\/do-not-disrupt/);
  });

  it('aborts when a PDB now blocks the eviction', () => {
    const cmd = consolidationCommand();
    const fresh = disruptionInput(
      [node('big', { pool: p, type: 'm5.2xlarge', cpus: ['2', '2'] }), node('small', { pool: p, cpus: ['1'] })],
      { nodePools: [p], now: later, pdbs: [pdb('web', { app: 'web' }, 0)] },
    );
    const r = validate(cmd, fresh);
    expect(r.command).toBeUndefined();
    expect(r.blockers).toEqual([
      expect.stringMatching(/^small: PodDisruptionBudget default\/web allows 0 disruptions now \(pod default\/.+\)$/),
    ]);
  });

  it('keeps the command when a PDB appeared that still allows a disruption: it only paces the drain', () => {
    const cmd = consolidationCommand();
    const fresh = disruptionInput(
      [node('big', { pool: p, type: 'm5.2xlarge', cpus: ['2', '2'] }), node('small', { pool: p, cpus: ['1'] })],
      { nodePools: [p], now: later, pdbs: [pdb('web', { app: 'web' }, 1)] },
    );
    expect(validate(cmd, fresh)).toEqual({ command: cmd, blockers: [] });
  });

  it('aborts when pods changed on a candidate since the decision', () => {
    const cmd = consolidationCommand();
    const fresh = disruptionInput(
      [
        node('big', { pool: p, type: 'm5.2xlarge', cpus: ['2', '2'] }),
        node('small', { pool: p, cpus: ['1', '1'], lastPodEventAt: T0 + 5000 }),
      ],
      { nodePools: [p], now: later },
    );
    expect(validate(cmd, fresh).blockers).toEqual(['small: pods changed since the decision']);
  });

  it('sheds only the empty candidates that gained pods', () => {
    const plan = planDisruption(disruptionInput([node('a', { pool: p }), node('b', { pool: p })], { nodePools: [p] }));
    const cmd = plan.commands[0] as DisruptionCommand;
    expect(cmd.reason).toBe('Empty');
    const fresh = disruptionInput([node('a', { pool: p, cpus: ['100m'] }), node('b', { pool: p })], {
      nodePools: [p],
      now: later,
    });
    const r = validate(cmd, fresh);
    expect(r.command?.candidates.map((c) => c.name)).toEqual(['b']);
    expect(r.blockers).toEqual(['a: 1 pod(s) arrived']);
  });

  it('never drops a forceful expiration', () => {
    const ep = pool({ expireAfter: '1h' });
    const plan = planDisruption(
      disruptionInput([node('old', { pool: ep, cpus: ['1'], createdAt: T0 - 2 * HOUR })], { nodePools: [ep] }),
    );
    const cmd = plan.commands[0] as DisruptionCommand;
    const dnd = boundPod('old', '100m', '64Mi', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
    const fresh = disruptionInput([node('old', { pool: ep, pods: [dnd], createdAt: T0 - 2 * HOUR })], {
      nodePools: [ep],
      now: later,
    });
    expect(validate(cmd, fresh).command).toBe(cmd);
  });
});
