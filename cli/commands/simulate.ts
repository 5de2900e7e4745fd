// `karpless simulate`: plans the given manifests onto new NodeClaims with the real engine, "launches" them on the
// simulated cloud, and prints what it would run and what it costs.
import { expandPods, loadManifests } from '../../shared/api';
import { parseDuration } from '../../shared/api/quantity';
import { runSimulation, simulationObjectsOf } from '../../shared/sim';
import { catalogEngine } from '../../shared/sim/default-engine';
import { buildSimulateReport } from '../format/simulate-report';
import { renderSimulateTable } from '../format/simulate-table';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../io';
import { resolveCatalog } from './catalog-option';
import type { ClusterInputOptions } from './cluster-input';
import type { CommandContext } from './index';
import { type LimitOptions, limitsFrom } from './limits-option';
import { runScenarioCommand } from './simulate-scenario';

export interface SimulateOptions extends LimitOptions, ClusterInputOptions {
  file?: string[];
  scenario?: string;
  output: string;
  seed: string;
  catalog?: string;
  decisionsOut?: string;
  /** Exit 1 when any pod stays unschedulable, so CI can gate on a plan. */
  failOnPending?: boolean;
  timeBudget?: string;
  /** Progress lines on stderr for a scenario even when stderr is not a terminal. */
  progress?: boolean;
  /** Karpenter's operator settings MinValuesPolicy and PreferencePolicy. */
  minValuesPolicy?: string;
  preferencePolicy?: string;
}

export async function runSimulate(ctx: CommandContext, opts: SimulateOptions): Promise<void> {
  const usage = (message: string): void => {
    ctx.io.err(message);
    ctx.result.code = EXIT_USAGE;
  };
  const formats = opts.scenario ? ['table', 'json', 'html'] : ['table', 'json'];
  if (!formats.includes(opts.output)) return usage(`--output: "${opts.output}" is not one of ${formats.join(', ')}`);
  const seed = Number(opts.seed);
  if (!Number.isInteger(seed) || seed < 0) return usage(`--seed: "${opts.seed}" is not a non-negative integer`);
  if (opts.scenario && opts.file) return usage('give either --scenario or -f/--file, not both');
  if (opts.scenario && opts.kubeconfig) return usage('give either --scenario or --kubeconfig, not both');
  if (opts.context && !opts.kubeconfig) return usage('--context needs --kubeconfig PATH');
  if (opts.scenario && opts.failOnPending) return usage('--fail-on-pending needs -f/--file');
  if (opts.scenario && opts.timeBudget) return usage('--time-budget applies to -f/--file plans, not to --scenario');
  if (!opts.scenario && opts.progress) return usage('--progress needs --scenario');
  if (opts.scenario) {
    const output = opts.output as 'table' | 'json' | 'html';
    return runScenarioCommand(ctx, { ...opts, scenario: opts.scenario, output, seed });
  }
  if (!opts.file && !opts.kubeconfig)
    return usage("error: required option '-f, --file <path>' not specified (or --kubeconfig PATH, or --scenario FILE)");
  if (opts.decisionsOut) return usage('--decisions-out needs --scenario');
  const timeBudgetMs = budgetOf(opts.timeBudget);
  if (timeBudgetMs instanceof Error) return usage(timeBudgetMs.message);
  const minValuesPolicy = oneOf('--min-values-policy', opts.minValuesPolicy, ['Strict', 'BestEffort'] as const);
  if (minValuesPolicy instanceof Error) return usage(minValuesPolicy.message);
  const preferencePolicy = oneOf('--preference-policy', opts.preferencePolicy, ['Respect', 'Ignore'] as const);
  if (preferencePolicy instanceof Error) return usage(preferencePolicy.message);
  const limits = limitsFrom(opts);
  // The Kubernetes client loads only for a cluster input, so `simulate -f` starts as fast as before.
  const set = opts.kubeconfig
    ? await (await import('./cluster-input')).loadClusterManifests(
        ctx,
        { ...opts, kubeconfig: opts.kubeconfig },
        limits,
      )
    : await loadManifests(opts.file ?? [], limits, ctx.io.readStdin, (line) => ctx.io.err(line));
  const expanded = expandPods(set);
  // --time-budget counts from here, the end of reading the input (docs/performance.md, "Whole command").
  const readAt = performance.now();
  const pods = expanded.pods;
  const source = [...(opts.kubeconfig ? [opts.kubeconfig] : []), ...(opts.file ?? [])].join(', ');
  if (pods.length >= 1000) ctx.io.err(`loaded ${pods.length} pods from ${source}`);
  const catalog = await resolveCatalog(opts, (line) => ctx.io.err(line));
  const result = await runSimulation(simulationObjectsOf(set, expanded), catalogEngine(catalog), {
    seed,
    onProgress: pods.length >= 1000 ? (m) => ctx.io.err(m) : undefined,
    ...(timeBudgetMs === undefined ? {} : { timeBudgetMs, budgetStartedAt: readAt }),
  });
  const report = buildSimulateReport(result, set.replaced);
  if (result.defaultNodePool) ctx.io.err(`warning: ${result.warnings.find((w) => w.startsWith('no NodePool given'))}`);
  ctx.io.out(opts.output === 'json' ? JSON.stringify(report, null, 2) : renderSimulateTable(report));
  ctx.result.code = EXIT_OK;
  if (opts.failOnPending && report.unschedulable.length > 0) {
    const reasons = report.unschedulable.map((u) => `  ${u.pod}: ${u.reason}`);
    ctx.io.err(
      [`${report.unschedulable.length} pod(s) would stay pending (--fail-on-pending):`, ...reasons].join('\n'),
    );
    ctx.result.code = EXIT_FAILURE;
  }
}

/** A flag limited to Karpenter's spelling of its values. */
function oneOf<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
): T | Error | undefined {
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  return new Error(`${flag}: "${value}" is not one of ${allowed.join(', ')}`);
}

/** --time-budget as milliseconds: a positive Go-style duration ("500ms", "2s"). */
function budgetOf(text: string | undefined): number | Error | undefined {
  if (text === undefined) return undefined;
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch {
    return new Error(`--time-budget: "${text}" is not a duration (for example 500ms, 2s or 1m)`);
  }
  if (!(ms > 0) || !Number.isFinite(ms))
    return new Error(`--time-budget: "${text}" must be a positive, finite duration`);
  return ms;
}

const _collect = (value: string, previous: string[] = []): string[] => [...previous, value];
