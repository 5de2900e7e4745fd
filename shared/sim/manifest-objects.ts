// What `simulate -f` hands the simulation from loaded manifests (plain files or a cluster dump): the expanded pods
// and every object kind the plan reads. One mapping, used by the command and by the tests that run it.
import { daemonSetsFromPods } from '../api/daemonset-pods';
import type { ExpandedPods } from '../api/expand';
import type { ManifestSet } from '../api/manifest-set';
import type { SimulationObjects } from './simulation';

export function simulationObjectsOf(set: ManifestSet, expanded: ExpandedPods): SimulationObjects {
  // A dump without its DaemonSets still carries their pods (docs/simulate-dump.md, "DaemonSets from their pods").
  const derived = daemonSetsFromPods(expanded.pods, set.daemonSets);
  return {
    pods: expanded.pods,
    nodes: set.nodes,
    nodePools: set.nodePools,
    nodeClasses: set.nodeClasses,
    daemonSets: derived.daemonSets.length > 0 ? [...set.daemonSets, ...derived.daemonSets] : set.daemonSets,
    pvcs: [...set.pvcs, ...expanded.pvcs],
    pvs: set.pvs,
    storageClasses: set.storageClasses,
    namespaces: set.namespaces,
    pdbs: set.pdbs,
    nodeOverlays: set.nodeOverlays,
    nodeClaims: set.nodeClaims,
    csiNodes: set.csiNodes,
    capacityReservations: set.capacityReservations,
    warnings: [...set.warnings, ...expanded.warnings, ...derived.warnings],
  };
}
