// What every `karpless` subcommand implementation receives. The subcommands' options and help are declared in
// cli/program/commands.ts, which loads these implementations only when one runs.
import type { Command } from 'commander';
import type { CliIO } from '../io';

/** A subcommand sets `result.code` from its action; main returns it as the exit code. */
export interface CommandContext {
  io: CliIO;
  result: { code: number };
}

export type RegisterCommand = (program: Command, ctx: CommandContext) => void;
