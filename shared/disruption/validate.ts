// The re-check before a graceful command acts (Karpenter waits 15 s and looks again): a do-not-disrupt pod or node,
// a PDB that now blocks (allows 0 disruptions, or a pod under two PDBs), a fresh nomination, or pods that arrived
// since the decision drop the command. The same rule as the sweep's: a PDB that allows any disruption only paces
// the drain.
// An Empty command only sheds the candidates that changed; a forceful (Expired) command always stands.
import { gracefulBlocker, nodeFacts } from './candidate';
import { PdbLimits } from './pdb';
import { DEFAULTS } from './sweep';
import type { DisruptionCommand, DisruptionInput } from './types';

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
        (command.reason === 'Empty' && f.pods.length > 0 ? `${f.pods.length} pod(s) arrived` : undefined) ??
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
