// Options several commands share, declared without loading what they configure (the catalog, the AWS SDK), so that
// building the program for `--help` stays cheap. The commands read the values through cli/commands/*-option.ts.
import type { Command } from 'commander';
import { DEFAULT_INPUT_LIMITS } from '../../shared/api/limits';

export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export const commaList = (value: string, previous: string[] = []): string[] => [
  ...previous,
  ...value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
];

/** Appended to a required option's help, since Commander's help does not mark mandatory options. */
export const REQUIRED = ' (required)';

export function addCatalogOption(cmd: Command): Command {
  return cmd.option('--catalog <file>', 'instance-type catalog JSON (default: the embedded us-east-1 snapshot)');
}

export function addLimitOptions(cmd: Command): Command {
  return cmd
    .option('--max-pods <n>', `pods a run may expand to (default ${DEFAULT_INPUT_LIMITS.maxPods})`)
    .option('--ignore-unknown', 'skip kinds Karpless does not read, with a warning, instead of failing');
}

export function addTableOptions(cmd: Command): Command {
  return cmd
    .option('--table <name>', "a deployed cluster's DynamoDB table (the stack's TableName output)")
    .option('--cluster <name>', 'with --table: the cluster whose NodeClaims and records to read')
    .option('--region <region>', 'with --table: the table’s region (default: the AWS SDK’s, e.g. AWS_REGION)')
    .option('--endpoint-url <url>', 'with --table: another DynamoDB endpoint, such as DynamoDB Local');
}

/** The options of a command that reads a cluster's records: from a Scenario run on the simulator (`fromSimHelp` says
 * what it reads there) or from a deployed cluster's table, printed as text or JSON. */
export function addRecordSourceOptions(cmd: Command, fromSimHelp: string): Command {
  return addTableOptions(
    cmd
      .option('--from-sim <scenario>', fromSimHelp)
      .option('--seed <n>', 'with --from-sim: the seed, as given to simulate', '1')
      .option('-o, --output <format>', 'text or json', 'text'),
  );
}

/**
 * Every missing required option, as one message, or undefined when none is missing. Commander's requiredOption
 * stops at the first; a user fixing a command line wants them all at once.
 */
export function missingOptions(opts: object, required: Record<string, string>): string | undefined {
  const values = opts as Record<string, unknown>;
  const missing = Object.entries(required)
    .filter(([key]) => values[key] === undefined)
    .map(([, flag]) => flag);
  if (missing.length === 0) return undefined;
  return `error: required option${missing.length > 1 ? 's' : ''} ${missing.map((f) => `'${f}'`).join(', ')} not specified`;
}
