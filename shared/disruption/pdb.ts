// PodDisruptionBudgets as Karpenter reads them: a graceful disruption is blocked by a pod whose PDB allows no
// disruption right now, or by a pod two or more PDBs select (the eviction API refuses such a pod outright, with a
// 500). A PDB that allows at least one disruption does not block, however many of its pods the node holds: the
// drain evicts through the eviction API, which answers 429 once the allowance is spent, and the termination
// controller retries at the PDB's pace. Counting pods against the allowance here would keep a node holding more
// replicas than maxUnavailable forever.
import type { Pod, PodDisruptionBudget } from '../api/kube';
import { matchesLabelSelector } from '../api/selector';

const pdbName = (pdb: PodDisruptionBudget): string => `${pdb.metadata.namespace ?? 'default'}/${pdb.metadata.name}`;
const podName = (p: Pod): string => `${p.metadata.namespace ?? 'default'}/${p.metadata.name}`;

export function selects(pdb: PodDisruptionBudget, pod: Pod): boolean {
  return (
    (pdb.metadata.namespace ?? 'default') === (pod.metadata.namespace ?? 'default') &&
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

/** Disruptions the PDB allows by its pods, the way the disruption controller counts them (from the healthy pods it
 * selects), not clamped at zero: negative when more of its pods are down than it allows. */
export function disruptionHeadroom(pdb: PodDisruptionBudget, pods: Iterable<Pod>): number {
  let expected = 0;
  let ok = 0;
  for (const p of pods) {
    if (!selects(pdb, p)) continue;
    expected++;
    if (healthy(p)) ok++;
  }
  if (pdb.spec.maxUnavailable !== undefined) return resolve(pdb.spec.maxUnavailable, expected) - (expected - ok);
  if (pdb.spec.minAvailable !== undefined) return ok - resolve(pdb.spec.minAvailable, expected);
  return ok;
}

/** The allowance the disruption controller would write into the PDB's status now, computed from the pods. */
export function computedDisruptionsAllowed(pdb: PodDisruptionBudget, pods: Iterable<Pod>): number {
  return Math.max(0, disruptionHeadroom(pdb, pods));
}

/** The PDB's current allowance: its status when the API server reported one, else computed from the pods. */
export function allowedDisruptions(pdb: PodDisruptionBudget, pods: readonly Pod[]): number {
  const reported = pdb.status?.disruptionsAllowed;
  return reported !== undefined ? reported : computedDisruptionsAllowed(pdb, pods);
}

/** The cluster's PDBs with their allowances at one moment, answering which pods they keep from eviction. */
export class PdbLimits {
  private readonly allowed = new Map<PodDisruptionBudget, number>();

  constructor(
    private readonly pdbs: readonly PodDisruptionBudget[],
    allPods: readonly Pod[],
  ) {
    for (const pdb of pdbs) this.allowed.set(pdb, allowedDisruptions(pdb, allPods));
  }

  /** Why these pods cannot be evicted now, one line per blocking PDB or multiply-covered pod; empty when the
   * drain can proceed (possibly at the PDBs' pace). */
  check(pods: readonly Pod[]): string[] {
    if (this.pdbs.length === 0) return [];
    const blocking = new Map<PodDisruptionBudget, Pod>();
    const multiple: string[] = [];
    for (const p of pods) {
      const covering = this.pdbs.filter((pdb) => selects(pdb, p));
      if (covering.length > 1) {
        multiple.push(
          `pod ${podName(p)} is selected by ${covering.length} PodDisruptionBudgets (${covering.map(pdbName).join(', ')}); the eviction API refuses it`,
        );
        continue;
      }
      const pdb = covering[0];
      if (pdb && (this.allowed.get(pdb) ?? 0) <= 0 && !blocking.has(pdb)) blocking.set(pdb, p);
    }
    const zero = [...blocking].map(
      ([pdb, p]) => `PodDisruptionBudget ${pdbName(pdb)} allows 0 disruptions now (pod ${podName(p)})`,
    );
    return [...zero, ...multiple];
  }
}
