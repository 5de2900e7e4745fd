// One disruption sweep, pure: emptiness, drift, expiration, multi-node then single-node consolidation, in that
// order, sharing one capacity model, one set of budgets and one view of the PDBs. Every command and every candidate left
// alone comes with a decision record.
import type { DecisionRecord } from '../api/nodeclaim';
import { consolidate } from './consolidation';
import { drift, emptiness, expiration } from './forced';
import { Sweep } from './sweep';
import type { DisruptionInput, DisruptionPlan, RejectedCandidate } from './types';

export function planDisruption(input: DisruptionInput): DisruptionPlan {
  const timer = input.options?.timer ?? (() => performance.now());
  const started = timer();
  const sw = new Sweep(input, timer, started);
  const solverChecks = { left: sw.settings.maxSolverChecks };
  emptiness(sw);
  drift(sw, solverChecks);
  expiration(sw, solverChecks);
  consolidate(sw, solverChecks);

  const rejected: RejectedCandidate[] = [];
  const records: DecisionRecord[] = sw.commands.map((c) => c.record);
  for (const [idx, blockers] of [...sw.rejected].sort((a, b) => a[0] - b[0])) {
    const f = sw.facts[idx];
    if (!f || sw.taken.has(idx) || sw.deferred.has(idx)) continue;
    const r: RejectedCandidate = { name: f.name, nodeClaim: f.n.claim.name, blockers };
    if (f.poolName) r.nodePool = f.poolName;
    rejected.push(r);
    records.push({
      id: `keep-${input.now}-${f.n.claim.name}`,
      cluster: input.cluster ?? '',
      at: new Date(input.now).toISOString(),
      kind: 'Keep',
      nodeClaims: [f.n.claim.name],
      summary: `kept ${f.name}: ${blockers.join('; ')}`,
      detail: { node: f.name, nodePool: f.poolName, pricePerHour: f.price, pods: f.pods.length, blockers },
    });
  }
  const unconsolidatable = [...sw.unconsolidatable].flatMap(([idx, message]) => {
    const f = sw.facts[idx];
    return f ? [{ name: f.name, nodeClaim: f.n.claim.name, message }] : [];
  });
  return {
    at: input.now,
    commands: sw.commands,
    rejected,
    ...(unconsolidatable.length ? { unconsolidatable } : {}),
    records,
    stats: {
      nodes: input.nodes.length,
      candidates: sw.commands.reduce((s, c) => s + c.candidates.length, 0) + rejected.length,
      solverCalls: sw.solverCalls,
      durationMs: timer() - started,
      deadlineReached: sw.deferred.size > 0,
      deferred: sw.deferred.size,
    },
    ...(sw.cursor ? { cursor: sw.cursor } : {}),
  };
}
