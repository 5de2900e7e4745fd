// Every `karpless` subcommand registers itself here, one module each.
import type { Command } from 'commander';
import type { CliIO } from '../io';
import { registerMigrate } from './migrate';
import { registerCrds } from './crds';

/** A subcommand sets `result.code` from its action; main returns it as the exit code. */
export interface CommandContext {
  io: CliIO;
  result: { code: number };
}

export type RegisterCommand = (program: Command, ctx: CommandContext) => void;

export const commands: RegisterCommand[] = [registerMigrate, registerCrds];
