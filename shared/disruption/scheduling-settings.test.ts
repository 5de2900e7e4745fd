// clusters.yaml `settings` carries Karpenter's MinValuesPolicy and PreferencePolicy to every solve.
import { describe, expect, it } from 'vitest';
import { DISRUPTION_SETTINGS_DEFAULTS, disruptionSettingsFromEnv, parseDisruptionSettings } from './settings';

describe('scheduling operator settings', () => {
  it("defaults to Karpenter's Strict and Respect", () => {
    expect(DISRUPTION_SETTINGS_DEFAULTS.minValuesPolicy).toBe('Strict');
    expect(DISRUPTION_SETTINGS_DEFAULTS.preferencePolicy).toBe('Respect');
  });

  it('reads both, and names the field of a bad value', () => {
    const problems: string[] = [];
    const s = parseDisruptionSettings(
      { minValuesPolicy: 'BestEffort', preferencePolicy: 'ignore' },
      'clusters[0].settings',
      (path, message) => problems.push(`${path}: ${message}`),
    );
    expect(s.minValuesPolicy).toBe('BestEffort');
    expect(s.preferencePolicy).toBe('Respect');
    expect(problems).toEqual(['clusters[0].settings.preferencePolicy: must be one of Respect, Ignore, got "ignore"']);
  });

  it('reaches the functions through DISRUPTION_SETTINGS', () => {
    const s = disruptionSettingsFromEnv('{"preferencePolicy":"Ignore"}', () => {});
    expect(s.preferencePolicy).toBe('Ignore');
  });
});
