// The disruption engine's public surface: one pure sweep, its re-check, node repair, the settings, and the helpers
// callers persist with.
export { budgetActive, budgetCap, budgetNodes, DEFAULT_BUDGET, remainingBudget } from './budgets';
export { driftReason, labelSatisfies, nodeClassHash, nodePoolTemplateHash } from './drift';
export { recordHistory } from './history';
export { allowedDisruptions, computedDisruptionsAllowed, disruptionHeadroom, selects } from './pdb';
export { planDisruption } from './plan';
export { evictionCost } from './pods';
export { planRepairs, type RepairPlan } from './repair';
export {
  DISRUPTION_SETTINGS_DEFAULTS,
  DISRUPTION_SETTINGS_ENV,
  type DisruptionSettings,
  disruptionOptionsOf,
  disruptionSettingsEnv,
  disruptionSettingsFromEnv,
  parseDisruptionSettings,
} from './settings';
export { DEFAULTS as DISRUPTION_DEFAULTS } from './sweep';
export type * from './types';
export { VALIDATION_DELAY_MS, type ValidationResult, validate } from './validate';
