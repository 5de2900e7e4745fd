// Label-selector matching for the simulated cluster's PDBs and DaemonSets, on top of shared/api's matcher.
import type { LabelSelector } from '../api/kube';
import { matchesLabelSelector } from '../api/selector';

/** An absent selector matches nothing (a PDB without one selects no pods); an empty one matches everything. */
export function matchesSelector(selector: LabelSelector | undefined, labels: Record<string, string> = {}): boolean {
  return selector !== undefined && matchesLabelSelector(labels, selector);
}
