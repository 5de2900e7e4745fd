// The real disruption engine behind a scenario's sweeps: the one the provisioner's Sweep tick runs in Lambda.
import { defaultSweepEngine } from '../../controllers';
import type { SweepEngine } from './disruption-driver';

export function productionSweepEngine(): SweepEngine {
  return { ...defaultSweepEngine };
}
