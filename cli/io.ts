// Where a command writes. Tests pass buffers; the binary passes the process streams.
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** All of standard input, for `-f -`. */
  readStdin(): Promise<string>;
  /** Whether stderr is a terminal (progress lines are only for people). */
  errIsTTY: boolean;
}

async function readProcessStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
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
    readStdin: async () => stdin,
    errIsTTY: false,
    out: (t) => stdout.push(t.endsWith('\n') ? t : `${t}\n`),
    err: (t) => stderr.push(t.endsWith('\n') ? t : `${t}\n`),
  };
}
