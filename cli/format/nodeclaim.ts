// How the CLI names a NodeClaim's disruption in flight (explain's "now" line, the nodeclaims table).
import type { NodeClaim } from '../../shared/api/nodeclaim';

/** "Drifted", or "Underutilized (Validating)" while a command is in flight; empty when there is none. */
export function disruptionText(d: NodeClaim['disruption']): string {
  if (!d) return '';
  return d.phase ? `${d.cause} (${d.phase})` : d.cause;
}
