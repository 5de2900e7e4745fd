// The re-check before a graceful command acts (Karpenter waits 15 s and looks again): a do-not-disrupt pod or node,
// a PDB that now blocks (allows 0 disruptions, or a pod under two PDBs), a fresh nomination, or pods that arrived
// since the decision drop the command. The same rule as the sweep's: a PDB that allows any disruption only paces
// the drain.
// An Empty command only sheds the candidates that are no longer empty; a forceful (Expired) command always stands.
import type { Pod } from '../api/kube';
import { gracefulBlocker, nodeFacts } from './candidate';
import { PdbLimits } from './pdb';
import { evictionCost } from './pods';
import { DEFAULTS } from './sweep';
import type { DisruptionCommand, DisruptionInput } from './types';

/** The pods that keep a node from being empty: those that cost something to evict (candidate.ts, `empty`). */
const costly = (pods: readonly Pod[]): number => pods.filter((p) => evictionCost(p) > 0).length;

/** Wait this long after deciding before validating and acting. */
export const VALIDATION_DELAY_MS = 15_000;

export interface ValidationResult {
  /** The command to execute, possibly with fewer candidates; undefined when it is dropped. */
  command?: DisruptionCommand;
  /** Why candidates (or the whole command) were dropped. */
  blockers: string[];
}

export function validate(command: DisruptionCommand, fresh: DisruptionInput): ValidationResult {
  if (command.forceful) return { command, blockers: [] };
  const decidedAt = Date.parse(command.record.at);
  const protection = fresh.options?.nominationProtectionMs ?? DEFAULTS.nominationProtectionMs;
  const facts = nodeFacts(fresh, protection);
  const byName = new Map(facts.map((f) => [f.name, f]));
  const pdbs = new PdbLimits(
    fresh.pdbs ?? [],
    fresh.nodes.flatMap((n) => n.node.pods),
  );
  const blockers: string[] = [];
  const keep = command.candidates.filter((c) => {
    const f = byName.get(c.name);
    const problem = !f
      ? 'node is gone'
      : (gracefulBlocker(f, pdbs, command.reason === 'Drifted') ??
        (command.reason === 'Empty' && !f.empty ? `${costly(f.pods)} pod(s) arrived` : undefined) ??
        (command.reason !== 'Empty' && f.n.lastPodEventAt !== undefined && f.n.lastPodEventAt > decidedAt
          ? 'pods changed since the decision'
          : undefined));
    if (problem) blockers.push(`${c.name}: ${problem}`);
    return !problem;
  });
  const partialOk = command.reason === 'Empty' && command.replacements.length === 0;
  if (blockers.length === 0) return { command, blockers };
  if (!partialOk || keep.length === 0) return { blockers };
  return { command: { ...command, candidates: keep }, blockers };
}
