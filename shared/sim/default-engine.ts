// The real engine behind a simulation: the solver, the LP lower bound, the catalog's view through each
// EC2NodeClass, and the embedded default NodePool.
import { defaultNodePool } from '../api/default-nodepool';
import { describeCatalog, type InstanceTypeOptions, instanceTypesFor } from '../catalog';
import type { Catalog } from '../catalog/types';
import { lowerBound, solve } from '../scheduling';
import type { SimulationEngine } from './simulation';

export function catalogEngine(catalog: Catalog, options: InstanceTypeOptions = {}): SimulationEngine {
  return {
    solve,
    lowerBound: (pods, types, overhead) => lowerBound(pods, types, overhead),
    instanceTypesFor: (nodeClass) => instanceTypesFor(catalog, nodeClass, options),
    defaultNodePool: () => defaultNodePool(),
    catalog: { region: catalog.region, zones: catalog.zones.map((z) => z.name), name: describeCatalog(catalog) },
  };
}
