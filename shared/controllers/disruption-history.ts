// The per-NodePool disruption history (for anti-churn back-off), derived from claims' disruption records of the
// last 24 h, one entry per command (the claims keep its id), as recordHistory builds it in process.

import type { DisruptionCause, NodeClaim } from '../api/nodeclaim';
import type { CommandReason, DisruptionHistory } from '../disruption';

const HISTORY_KEEP_MS = 24 * 3_600_000;
const COMMAND_CAUSES = new Set<DisruptionCause>(['Empty', 'Underutilized', 'Drifted', 'Expired']);

/** The per-NodePool history of the last 24 h, read back from the claims that commands disrupted, counted as
 * recordHistory counts a plan: one entry per command and NodePool, `removed` its claims in that pool, `launched` the
 * command's replacements in that pool, each once (every claim of a command names all its replacements, so counting
 * per claim made a 3-into-1 merge look like three replacing commands and tripped the churn back-off). */
export function historyFrom(claims: readonly NodeClaim[], now: number): DisruptionHistory {
  const poolOf = new Map(claims.map((c) => [c.name, c.nodePool]));
  const commands = new Map<string, { at: number; reason: CommandReason; claims: NodeClaim[] }>();
  for (const c of claims) {
    const d = c.disruption;
    if (!d || d.phase || !COMMAND_CAUSES.has(d.cause)) continue;
    const at = Date.parse(d.at);
    if (Number.isNaN(at) || at < now - HISTORY_KEEP_MS) continue;
    // Claims terminated before the command id was kept on them: a command's claims share their replacements.
    const key =
      d.commandId ?? (d.replacements?.length ? `launched:${[...d.replacements].sort().join(',')}` : `claim:${c.name}`);
    const command = commands.get(key);
    if (command) {
      command.claims.push(c);
      command.at = Math.min(command.at, at);
    } else commands.set(key, { at, reason: d.cause as CommandReason, claims: [c] });
  }
  const out: DisruptionHistory = {};
  for (const { at, reason, claims: members } of commands.values()) {
    const pools = [...new Set(members.map((c) => c.nodePool))].sort();
    const launched = [...new Set(members.flatMap((c) => c.disruption?.replacements ?? []))];
    for (const pool of pools) {
      const removed = members.filter((c) => c.nodePool === pool).length;
      // A replacement counts for its own NodePool; one whose claim is gone, for the command's first pool.
      const own = launched.filter((r) => (poolOf.get(r) ?? pools[0]) === pool).length;
      out[pool] = [...(out[pool] ?? []), { at, reason, removed, launched: own }];
    }
  }
  for (const entries of Object.values(out)) entries.sort((a, b) => a.at - b.at);
  return out;
}
