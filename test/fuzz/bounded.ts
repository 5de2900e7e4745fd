// Runs one fuzz case with a deadline, telling a hang, a crash and a result apart.

/** Text that only an unhandled JavaScript error puts in front of a user. */
export const INTERNAL_ERROR =
  /TypeError|ReferenceError|RangeError|SyntaxError: Unexpected|Cannot read propert|is not a function|is not iterable|undefined is not|Maximum call stack|\bat .+\.(ts|js|mjs):\d+/;

export type Outcome<T> = { kind: 'value'; value: T } | { kind: 'threw'; error: string } | { kind: 'timeout' };

export async function runBounded<T>(run: () => Promise<T>, ms: number): Promise<Outcome<T>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Outcome<T>>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timeout' }), ms);
  });
  try {
    return await Promise.race([
      run().then(
        (value): Outcome<T> => ({ kind: 'value', value }),
        (err: unknown): Outcome<T> => ({
          kind: 'threw',
          error: err instanceof Error ? (err.stack ?? err.message) : String(err),
        }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
