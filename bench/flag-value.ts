// The value after a command-line flag of a bench script (`--pods 20,200`), or the fallback when the flag or its
// value is missing.
export function flagValue(args: readonly string[], name: string, fallback: string): string {
  const i = args.indexOf(name);
  return i >= 0 ? (args[i + 1] ?? fallback) : fallback;
}
