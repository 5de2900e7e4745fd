// PodDisruptionBudgets as one sweep spends them: each PDB's allowance is counted across every pod the sweep's
// commands would evict, so two commands cannot each take the last disruption of the same PDB.
import type { Pod, PodDisruptionBudget } from '../api/kube';
import { matchesLabelSelector } from '../api/selector';

const pdbName = (pdb: PodDisruptionBudget): string => `${pdb.metadata.namespace ?? 'default'}/${pdb.metadata.name}`;

export function selects(pdb: PodDisruptionBudget, pod: Pod): boolean {
  return (
    (pdb.metadata.namespace ?? 'default') === pod.metadata.namespace &&
    !!pdb.spec.selector &&
    matchesLabelSelector(pod.metadata.labels, pdb.spec.selector)
  );
}

const healthy = (p: Pod): boolean =>
  !!p.spec.nodeName && !p.metadata.deletionTimestamp && (p.status?.phase ?? 'Running') === 'Running';

function resolve(value: number | string, expected: number): number {
  if (typeof value === 'number') return value;
  const pct = /^(\d+)%$/.exec(value.trim());
  return pct ? Math.ceil((Number(pct[1]) * expected) / 100) : Number(value) || 0;
}

/** The PDB's current allowance: its status when the API server reported one, else computed from the pods. */
export function allowedDisruptions(pdb: PodDisruptionBudget, pods: readonly Pod[]): number {
  if (pdb.status?.disruptionsAllowed !== undefined) return pdb.status.disruptionsAllowed;
  let expected = 0;
  let ok = 0;
  for (const p of pods) {
    if (!selects(pdb, p)) continue;
    expected++;
    if (healthy(p)) ok++;
  }
  if (pdb.spec.maxUnavailable !== undefined) {
    return Math.max(0, resolve(pdb.spec.maxUnavailable, expected) - (expected - ok));
  }
  if (pdb.spec.minAvailable !== undefined) return Math.max(0, ok - resolve(pdb.spec.minAvailable, expected));
  return ok;
}

export class PdbLedger {
  private readonly remaining = new Map<PodDisruptionBudget, number>();

  constructor(
    private readonly pdbs: readonly PodDisruptionBudget[],
    allPods: readonly Pod[],
  ) {
    for (const pdb of pdbs) this.remaining.set(pdb, allowedDisruptions(pdb, allPods));
  }

  /** Blockers if evicting these pods would take some PDB below zero (given what earlier commands spent). */
  check(pods: readonly Pod[]): string[] {
    const out: string[] = [];
    for (const [pdb, count] of this.counts(pods)) {
      const left = this.remaining.get(pdb) ?? 0;
      if (count > left) {
        out.push(
          `PodDisruptionBudget ${pdbName(pdb)} allows ${left} more disruption(s), the command would evict ${count}`,
        );
      }
    }
    return out;
  }

  spend(pods: readonly Pod[]): void {
    for (const [pdb, count] of this.counts(pods)) this.remaining.set(pdb, (this.remaining.get(pdb) ?? 0) - count);
  }

  /** Gives back what `spend` took, for tentative selections. */
  refund(pods: readonly Pod[]): void {
    for (const [pdb, count] of this.counts(pods)) this.remaining.set(pdb, (this.remaining.get(pdb) ?? 0) + count);
  }

  private counts(pods: readonly Pod[]): Map<PodDisruptionBudget, number> {
    const out = new Map<PodDisruptionBudget, number>();
    if (this.pdbs.length === 0) return out;
    for (const p of pods) {
      for (const pdb of this.pdbs) if (selects(pdb, p)) out.set(pdb, (out.get(pdb) ?? 0) + 1);
    }
    return out;
  }
}
