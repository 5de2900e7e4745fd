// A SimCloud whose instance types come from a catalog, seen through each EC2NodeClass with instanceTypesFor, at the
// virtual clock's time (so expiring unavailable offerings follow simulated time, not the wall clock).
import { instanceTypesFor } from '../catalog';
import type { Catalog, UnavailableOffering } from '../catalog/types';
import type { Clock } from '../ports';
import { SimCloud } from './sim-cloud';

export interface CatalogCloudOptions {
  clock: Clock;
  seed?: number;
  cluster?: string;
  /** Offerings the caller has marked unavailable (its ICE cache); consulted on every getInstanceTypes. */
  unavailable?: () => readonly UnavailableOffering[];
}

export function simCloudFromCatalog(catalog: Catalog, options: CatalogCloudOptions): SimCloud {
  return new SimCloud({
    clock: options.clock,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.cluster === undefined ? {} : { cluster: options.cluster }),
    instanceTypes: (nodeClass) =>
      instanceTypesFor(catalog, nodeClass, { unavailable: options.unavailable?.() ?? [], now: options.clock.now() }),
  });
}
