// Where a command writes. Tests pass buffers; the binary passes the process streams.
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
}

export const processIO: CliIO = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
};

/** Exit codes: 0 success, 1 runtime failure, 2 invalid input or usage. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export function bufferIO(): CliIO & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: (t) => stdout.push(t.endsWith('\n') ? t : `${t}\n`),
    err: (t) => stderr.push(t.endsWith('\n') ? t : `${t}\n`),
  };
}
