// Time-stepped scenarios: parse a Scenario file, run it on the simulator with the real control-plane use-cases, and
// report what happened.
export { productionSweepEngine } from './default-sweep';
export { type CommandInFlight, type DisruptingNode, DisruptionDriver, type SweepEngine } from './disruption-driver';
export { mergePatch } from './merge-patch';
export type { ViolationRecord, Violations } from './observer';
export { loadScenario, parseScenario } from './parse';
export type { CostSample, FleetSample, TimelineEntry, TimelineType, Totals } from './recorder';
export { buildScenarioReport, type ScenarioReport } from './report';
export { runScenario, SCENARIO_START, type ScenarioOptions, type ScenarioRun } from './runner';
export * from './types';
