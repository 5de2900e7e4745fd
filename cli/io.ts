// Where a command writes. Tests pass buffers; the binary passes the process streams.
import { mib } from '../shared/api/limits';
import { ValidationError } from '../shared/errors';

export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** All of standard input, for `-f -`: at most `maxBytes`, refused past them (ValidationError). */
  readStdin(maxBytes: number): Promise<string>;
  /** Whether stderr is a terminal (progress lines are only for people). */
  errIsTTY: boolean;
}

/**
 * Standard input up to the per-file cap (docs/api.md, "Input limits"): endless input (`yes |`, `< /dev/zero`) is
 * refused at the cap instead of growing without bound. A terminal is told what to type, so it never waits silently.
 */
async function readProcessStdin(maxBytes: number): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('reading YAML from standard input; end it with Ctrl-D\n');
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin) {
    total += (chunk as Buffer).length;
    if (total > maxBytes) {
      process.stdin.destroy();
      throw new ValidationError([`<stdin>: more than the limit of ${mib(maxBytes)} per file; split it`]);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export const processIO: CliIO = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  readStdin: readProcessStdin,
  errIsTTY: process.stderr.isTTY === true,
};

/** Exit codes: 0 success, 1 runtime failure, 2 invalid input or usage. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export function bufferIO(stdin = ''): CliIO & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    readStdin: async (maxBytes) => {
      if (Buffer.byteLength(stdin) > maxBytes) {
        throw new ValidationError([`<stdin>: more than the limit of ${mib(maxBytes)} per file; split it`]);
      }
      return stdin;
    },
    errIsTTY: false,
    out: (t) => stdout.push(t.endsWith('\n') ? t : `${t}\n`),
    err: (t) => stderr.push(t.endsWith('\n') ? t : `${t}\n`),
  };
}
