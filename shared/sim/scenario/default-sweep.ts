// The real disruption engine behind a scenario's sweeps: shared/disruption's plan, validation and history.
import { planDisruption, recordHistory, VALIDATION_DELAY_MS, validate } from '../../disruption';
import type { SweepEngine } from './disruption-driver';

export function disruptionSweep(): SweepEngine {
  return { plan: planDisruption, validate, recordHistory, validationDelayMs: VALIDATION_DELAY_MS };
}
