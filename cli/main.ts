import { Command, CommanderError } from 'commander';
import packageJson from '../package.json' with { type: 'json' };
import { ValidationError } from '../shared/errors';
import type { CommandContext } from './commands/index';
import { type CliIO, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, processIO } from './io';
import { commands } from './program/commands';

export function buildProgram(ctx: CommandContext): Command {
  const program = new Command('karpless')
    .description('Karpenter-class node autoscaling for EKS with a serverless control plane')
    .version(packageJson.version, '-V, --version', 'print the Karpless version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => ctx.io.out(s), writeErr: (s) => ctx.io.err(s) })
    .showHelpAfterError()
    .allowExcessArguments(false);
  // No action of its own: a root action would take a misspelt command as its argument ("too many arguments", or
  // "unknown option" for the command's options) where commander otherwise answers "unknown command" and suggests
  // the nearest one.
  for (const register of commands) register(program, ctx);
  return program;
}

/** Runs the CLI and returns its exit code; never calls process.exit, so tests can drive it in-process. */
export async function main(argv: string[], io: CliIO = processIO): Promise<number> {
  const ctx: CommandContext = { io, result: { code: EXIT_OK } };
  const program = buildProgram(ctx);
  if (argv.length === 0) {
    program.outputHelp();
    return EXIT_OK;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return ctx.result.code;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    if (err instanceof ValidationError) {
      io.err(err.message);
      return EXIT_USAGE;
    }
    io.err(`karpless: ${err instanceof Error ? err.message : String(err)}`);
    return EXIT_FAILURE;
  }
}
