// Every `karpless` subcommand registers itself here, one module each.
import type { Command } from 'commander';
import type { CliIO } from '../io';
import { registerBench } from './bench';
import { registerCatalog } from './catalog';
import { registerCrds } from './crds';
import { registerDev } from './dev';
import { registerExplain } from './explain';
import { registerForwarder } from './forwarder';
import { registerInvoke } from './invoke';
import { registerMigrate } from './migrate';
import { registerNodeClaims } from './nodeclaims';
import { registerSimulate } from './simulate';

/** A subcommand sets `result.code` from its action; main returns it as the exit code. */
export interface CommandContext {
  io: CliIO;
  result: { code: number };
}

export type RegisterCommand = (program: Command, ctx: CommandContext) => void;

export const commands: RegisterCommand[] = [
  registerSimulate,
  registerBench,
  registerCatalog,
  registerMigrate,
  registerCrds,
  registerForwarder,
  registerExplain,
  registerNodeClaims,
  registerDev,
  registerInvoke,
];
