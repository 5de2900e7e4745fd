// The measures of `npm run bench` besides the scheduling workloads: each runs in a child process of its own
// (bench/measure-child.ts) and yields one value checked against its target.
import { CLI_HELP_MEASURE } from './cli-help';
import { CONTROL_PLANE_MEASURES } from './control-plane-measures';
import { DISRUPTION_MEASURES } from './disruption-measures';
import { SMALL_BATCH_MEASURE } from './small-batch-measures';
import { TIME_BUDGET_MEASURES } from './time-budget-measure';
import { WHOLE_COMMAND_MEASURES } from './whole-command';
import { WHOLE_COMMAND_BUDGET_MEASURE } from './whole-command-budget';

export { timed } from './timed';

export interface BenchMeasurement {
  name: string;
  description: string;
  target: string;
  /** The measured value the target is about. */
  value: number;
  unit: 's' | 'ms' | 'KiB' | '× LB' | '× optimum';
  pass: boolean;
  wallMs: number;
  cpuMs: number;
  detail: string;
  /** The 1, 5 and 15 minute load averages when the measure ended (bench/measure-child.ts adds them). */
  loadAverage?: number[];
}

export interface BenchMeasure {
  name: string;
  description: string;
  run(): Promise<BenchMeasurement>;
}

export const MEASURES: readonly BenchMeasure[] = [
  SMALL_BATCH_MEASURE,
  ...TIME_BUDGET_MEASURES,
  ...DISRUPTION_MEASURES,
  ...CONTROL_PLANE_MEASURES,
  ...WHOLE_COMMAND_MEASURES,
  WHOLE_COMMAND_BUDGET_MEASURE,
  CLI_HELP_MEASURE,
];

export const findMeasure = (name: string): BenchMeasure | undefined => MEASURES.find((m) => m.name === name);
