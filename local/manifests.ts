// Manifests for the local pipeline: YAML files or folders loaded the way `karpless simulate` loads them, workloads
// expanded into their pods, and Karpless's default NodePool when none is given (said so in the warnings).
import { defaultNodePool, expandPods, loadManifests } from '../shared/api';

export interface PipelineObjects {
  objects: { kind?: string }[];
  pods: number;
  warnings: string[];
}

export async function loadPipelineObjects(paths: string[], cluster: string): Promise<PipelineObjects> {
  const set = await loadManifests(paths);
  const expanded = expandPods(set);
  const warnings = [...set.warnings, ...expanded.warnings];
  const pools: { kind?: string }[] = [...set.nodePools, ...set.nodeClasses];
  if (set.nodePools.length === 0) {
    const fallback = defaultNodePool(cluster);
    pools.push(fallback.nodePool, fallback.nodeClass);
    warnings.push(
      `no NodePool in ${paths.join(', ')}: using Karpless's default NodePool "${fallback.nodePool.metadata.name}"`,
    );
  }
  const objects: { kind?: string }[] = [
    ...pools,
    ...set.nodes,
    ...set.daemonSets,
    ...set.pdbs,
    ...set.pvcs,
    ...expanded.pvcs,
    ...set.pvs,
    ...set.storageClasses,
    ...set.namespaces,
    ...expanded.pods.map((p) => ({ ...p, kind: 'Pod' })),
  ];
  return { objects, pods: expanded.pods.length, warnings };
}
