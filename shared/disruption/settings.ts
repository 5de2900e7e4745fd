// The cluster-wide settings that change what disruption does: Karpenter's operator settings (its
// SpotToSpotConsolidation feature gate, and the timing its disruption controller hard-codes) plus Karpless's own
// anti-churn knobs, and Karpenter's two scheduling operator settings (MinValuesPolicy, PreferencePolicy), which every
// solve follows. Written as `settings:` in clusters.yaml (passed to the functions as DISRUPTION_SETTINGS) and in a
// scenario's `spec.settings`; docs/disruption.md lists each with Karpenter's default.
import { formatDuration, parseDuration } from '../api/quantity';
import type { MinValuesPolicy, PreferencePolicy } from '../scheduling';
import type { DisruptionOptions } from './types';

export interface DisruptionSettings {
  /** Karpenter's SpotToSpotConsolidation feature gate (FEATURE_GATES), off by default: spot nodes are deleted when
   * empty or underused, never replaced by spot. */
  spotToSpotConsolidation: boolean;
  /** The wait between deciding a graceful command and re-checking it (Karpenter: 15 s, a constant). */
  consolidationValidationDelayMs: number;
  /** How long a command waits for its replacements to initialize before it is abandoned and its nodes untainted
   * (Karpenter: 10 m, a constant). */
  replacementTimeoutMs: number;
  /** A node nominated for pending pods this recently is not disrupted (Karpenter: max(2 × BATCH_MAX_DURATION, 10 s),
   * 20 s by default). */
  nominationWindowMs: number;
  /** Karpless: a replacement must save at least this fraction of what it replaces (Karpenter: any saving). */
  minSavingFraction: number;
  /** Karpless: consolidation may split one node over several cheaper new ones (Karpenter never does). */
  splitConsolidation: boolean;
  /** Karpenter's NodeRepair feature gate (FEATURE_GATES), off by default: nodes whose conditions stay unhealthy past
   * their toleration are terminated (shared/disruption/repair.ts). */
  nodeRepair: boolean;
  /** Karpenter's MinValuesPolicy operator setting (Strict | BestEffort), for every solve: provisioning and
   * consolidation's replacements. */
  minValuesPolicy: MinValuesPolicy;
  /** Karpenter's PreferencePolicy operator setting (Respect | Ignore), for every solve. */
  preferencePolicy: PreferencePolicy;
}

export const DISRUPTION_SETTINGS_DEFAULTS: DisruptionSettings = {
  spotToSpotConsolidation: false,
  consolidationValidationDelayMs: 15_000,
  replacementTimeoutMs: 10 * 60_000,
  nominationWindowMs: 20_000,
  minSavingFraction: 0.05,
  splitConsolidation: true,
  nodeRepair: false,
  minValuesPolicy: 'Strict',
  preferencePolicy: 'Respect',
};

/** The YAML names, what each is in DisruptionSettings, and how it is read. */
const FIELDS = {
  spotToSpotConsolidation: { key: 'spotToSpotConsolidation', kind: 'bool' },
  consolidationValidationDelay: { key: 'consolidationValidationDelayMs', kind: 'duration' },
  replacementTimeout: { key: 'replacementTimeoutMs', kind: 'duration' },
  nominationWindow: { key: 'nominationWindowMs', kind: 'duration' },
  minSavingFraction: { key: 'minSavingFraction', kind: 'fraction' },
  splitConsolidation: { key: 'splitConsolidation', kind: 'bool' },
  nodeRepair: { key: 'nodeRepair', kind: 'bool' },
  minValuesPolicy: { key: 'minValuesPolicy', kind: 'enum', values: ['Strict', 'BestEffort'] },
  preferencePolicy: { key: 'preferencePolicy', kind: 'enum', values: ['Respect', 'Ignore'] },
} as const satisfies Record<
  string,
  { key: keyof DisruptionSettings; kind: 'bool' | 'duration' | 'fraction' | 'enum'; values?: readonly string[] }
>;

export const DISRUPTION_SETTING_NAMES = Object.keys(FIELDS) as (keyof typeof FIELDS)[];

/** Reads a `settings` map as written in YAML; every problem is reported at its field path (`path.field`). */
export function parseDisruptionSettings(
  raw: unknown,
  path: string,
  report: (path: string, message: string) => void,
): DisruptionSettings {
  const out = { ...DISRUPTION_SETTINGS_DEFAULTS };
  if (raw === undefined || raw === null) return out;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    report(path, `must be a map of settings (${DISRUPTION_SETTING_NAMES.join(', ')})`);
    return out;
  }
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    const field = FIELDS[name as keyof typeof FIELDS];
    const at = `${path}.${name}`;
    if (!field) {
      report(at, `unknown setting (known: ${DISRUPTION_SETTING_NAMES.join(', ')})`);
      continue;
    }
    if (field.kind === 'enum') {
      if (typeof value === 'string' && (field.values as readonly string[]).includes(value))
        (out[field.key] as string) = value;
      else report(at, `must be one of ${field.values.join(', ')}, got ${JSON.stringify(value)}`);
    } else if (field.kind === 'bool') {
      if (typeof value === 'boolean') (out[field.key] as boolean) = value;
      else report(at, `must be true or false, got ${JSON.stringify(value)}`);
    } else if (field.kind === 'fraction') {
      if (typeof value === 'number' && value >= 0 && value < 1) (out[field.key] as number) = value;
      else report(at, `must be a number from 0 up to (not including) 1, got ${JSON.stringify(value)}`);
    } else {
      const ms = typeof value === 'string' ? durationOrUndefined(value) : undefined;
      if (ms !== undefined && Number.isFinite(ms) && ms >= 0) (out[field.key] as number) = ms;
      else report(at, `must be a duration such as 15s or 10m, got ${JSON.stringify(value)}`);
    }
  }
  return out;
}

function durationOrUndefined(text: string): number | undefined {
  try {
    return parseDuration(text);
  } catch {
    return undefined;
  }
}

/** The settings that differ from the defaults, written back as YAML names: what DISRUPTION_SETTINGS carries. */
export function changedSettings(s: DisruptionSettings): Record<string, boolean | number | string> {
  const out: Record<string, boolean | number | string> = {};
  for (const name of DISRUPTION_SETTING_NAMES) {
    const field = FIELDS[name];
    const value = s[field.key];
    if (value === DISRUPTION_SETTINGS_DEFAULTS[field.key]) continue;
    out[name] = field.kind === 'duration' ? formatDuration(value as number) : value;
  }
  return out;
}

/** What the engine (planDisruption) takes of the settings. */
export function disruptionOptionsOf(s: DisruptionSettings): DisruptionOptions {
  return {
    spotToSpotConsolidation: s.spotToSpotConsolidation,
    nominationProtectionMs: s.nominationWindowMs,
    minSavingFraction: s.minSavingFraction,
    minValuesPolicy: s.minValuesPolicy,
    preferencePolicy: s.preferencePolicy,
    ...(s.splitConsolidation ? {} : { maxSplitChecks: 0 }),
  };
}

/** The functions' environment for these settings: DISRUPTION_SETTINGS, a JSON map of the changed ones. */
export function disruptionSettingsEnv(s: DisruptionSettings): Record<string, string> {
  const changed = changedSettings(s);
  return Object.keys(changed).length ? { [DISRUPTION_SETTINGS_ENV]: JSON.stringify(changed) } : {};
}

export const DISRUPTION_SETTINGS_ENV = 'DISRUPTION_SETTINGS';

/** Reads DISRUPTION_SETTINGS back; problems are reported naming the variable and the setting. */
export function disruptionSettingsFromEnv(
  value: string | undefined,
  report: (message: string) => void,
): DisruptionSettings {
  if (!value) return { ...DISRUPTION_SETTINGS_DEFAULTS };
  let raw: unknown;
  try {
    raw = JSON.parse(value);
  } catch {
    report(`${DISRUPTION_SETTINGS_ENV}: not JSON`);
    return { ...DISRUPTION_SETTINGS_DEFAULTS };
  }
  return parseDisruptionSettings(raw, DISRUPTION_SETTINGS_ENV, (path, message) => report(`${path}: ${message}`));
}
