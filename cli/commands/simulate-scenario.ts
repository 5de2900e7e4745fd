// `karpless simulate --scenario FILE`: runs a time-stepped scenario with the real control-plane use-cases and the
// disruption sweep on the simulator, then prints a table, the JSON report or a self-contained HTML report, and can
// write every decision record for `karpless explain`.
import { writeFile } from 'node:fs/promises';
import { catalogEngine } from '../../shared/sim/default-engine';
import { buildScenarioReport, loadScenario, productionSweepEngine, runScenario } from '../../shared/sim/scenario';
import { renderScenarioHtml } from '../format/html/scenario-report';
import { renderScenarioTable } from '../format/scenario-table';
import { EXIT_OK } from '../io';
import { resolveCatalog } from './catalog-option';
import type { CommandContext } from './index';

export interface ScenarioCommandOptions {
  scenario: string;
  output: 'table' | 'json' | 'html';
  seed: number;
  catalog?: string;
  decisionsOut?: string;
  /** Force progress lines; without it they go to stderr only when stderr is a terminal. */
  progress?: boolean;
}

export async function runScenarioCommand(ctx: CommandContext, opts: ScenarioCommandOptions): Promise<void> {
  const onWait = (line: string) => ctx.io.err(line);
  const scenario = await loadScenario(opts.scenario, onWait);
  const engine = catalogEngine(await resolveCatalog(opts, onWait));
  // Progress is for people watching a long run: on stderr, never stdout (which may be the JSON or HTML report).
  const showProgress = opts.progress === true || ctx.io.errIsTTY;
  const run = await runScenario(scenario, engine, {
    seed: opts.seed,
    sweep: productionSweepEngine(),
    ...(showProgress ? { onProgress: (line: string) => ctx.io.err(line) } : {}),
  });
  const report = await buildScenarioReport(run);
  if (opts.decisionsOut) {
    const decisions = run.world.store.allDecisions();
    await writeFile(opts.decisionsOut, `${JSON.stringify(decisions, null, 2)}\n`);
    ctx.io.err(`wrote ${decisions.length} decision record(s) to ${opts.decisionsOut}`);
  }
  for (const w of report.warnings) ctx.io.err(`warning: ${w}`);
  if (opts.output === 'json') ctx.io.out(JSON.stringify(report, null, 2));
  else if (opts.output === 'html') ctx.io.out(renderScenarioHtml(report));
  else ctx.io.out(renderScenarioTable(report));
  ctx.result.code = EXIT_OK;
}
