// `npm run bench`: the benchmark's own entry. Its workloads are built with the test builders (testkit/), which the
// shipped CLI never loads, so the benchmark is not a `karpless` subcommand (docs/architecture.md, "Layers").
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import type { CommandContext } from '../cli/commands/index';
import { type CliIO, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, processIO } from '../cli/io';
import type { BenchOptions } from './run';

export function buildBenchProgram(ctx: CommandContext): Command {
  return new Command('npm run bench --')
    .description(
      'Benchmark the scheduler (throughput, wall time, peak RSS, cost against the LP lower bound), disruption ' +
        '(sweep decision time, steady-state cost after a scale-down) and the control plane (pipeline decision ' +
        'latency, each Lambda bundle’s size and cold import)',
    )
    .exitOverride()
    .configureOutput({ writeOut: (s) => ctx.io.out(s), writeErr: (s) => ctx.io.err(s) })
    .showHelpAfterError()
    .allowExcessArguments(false)
    .option('--json', 'print the report as JSON')
    .option('--workload <names...>', 'run only these workloads and measures (an unknown name lists them all)')
    .option('--catalog <file>', 'instance-type catalog for the real-catalog workloads')
    .option('--timeout <seconds>', 'give up on a workload after this long', '600')
    .action(async (opts: BenchOptions) => (await import('./run')).runBench(ctx, opts));
}

/** Runs the benchmark and returns its exit code, as the CLI's main does for a subcommand. */
export async function main(argv: string[], io: CliIO = processIO): Promise<number> {
  const ctx: CommandContext = { io, result: { code: EXIT_OK } };
  try {
    await buildBenchProgram(ctx).parseAsync(argv, { from: 'user' });
    return ctx.result.code;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    io.err(`bench: ${err instanceof Error ? err.message : String(err)}`);
    return EXIT_FAILURE;
  }
}

if (fileURLToPath(import.meta.url) === process.argv[1]) {
  // As cli/bin.mjs does: the AWS SDK's Node 20 warning is noise here, and the measures' children inherit the setting.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  process.exitCode = await main(process.argv.slice(2));
}
