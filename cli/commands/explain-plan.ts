// `karpless explain NAME -f PATH...`: the records of a plan `simulate -f` would make, read the way a deployed
// cluster's are. The same provisioning pass runs on the same files (docs/simulate-dump.md, "Explaining a plan"); its
// simulated store keeps the Provision records, so a planned NodeClaim is explained by the same machinery as one in a
// table, and a pod the plan leaves pending gets its reason.
import { expandPods, loadManifests, type ReadStdin } from '../../shared/api';
import { podKey } from '../../shared/api/kube';
import { runSimulation, simulationObjectsOf } from '../../shared/sim';
import { catalogEngine } from '../../shared/sim/default-engine';
import { resolveCatalog } from './catalog-option';
import type { DecisionSource } from './explain';

export interface PlanSource {
  source: DecisionSource;
  /** Why each pending pod stays pending, by `namespace/name` and by its bare name. */
  pending: Map<string, { pod: string; reason: string }>;
}

export async function planSource(
  files: string[],
  opts: { seed: string; catalog?: string },
  readStdin: ReadStdin,
): Promise<PlanSource> {
  const set = await loadManifests(files, undefined, readStdin);
  let source: DecisionSource | undefined;
  const result = await runSimulation(
    simulationObjectsOf(set, expandPods(set)),
    catalogEngine(await resolveCatalog(opts)),
    {
      seed: Number(opts.seed),
      onWorld: ({ store }) => {
        source = {
          listDecisions: (claim) => store.listDecisions(claim),
          claimOfNode: async (node) => (await store.list()).find((c) => c.nodeName === node)?.name,
          claim: (name) => store.get(name),
        };
      },
    },
  );
  const pending = new Map<string, { pod: string; reason: string }>();
  for (const { pod, reason } of result.unschedulable) {
    const entry = { pod: podKey(pod), reason };
    pending.set(entry.pod, entry);
    if (!pending.has(pod.metadata.name)) pending.set(pod.metadata.name, entry);
  }
  if (!source) throw new Error('the simulation ran on no world');
  return { source, pending };
}
