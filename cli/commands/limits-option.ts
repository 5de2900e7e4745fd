// `--max-pods N` and `--ignore-unknown` for commands that read manifests: the input limits of docs/api.md
// ("Input limits"), raised or relaxed on purpose by the user.
import { type InputLimits, inputLimits } from '../../shared/api/limits';
import { ValidationError } from '../../shared/errors';

export interface LimitOptions {
  maxPods?: string;
  ignoreUnknown?: boolean;
}

/** The limits the options ask for; a bad --max-pods is a usage error (exit 2). */
export function limitsFrom(opts: LimitOptions): InputLimits {
  let maxPods: number | undefined;
  if (opts.maxPods !== undefined) {
    maxPods = Number(opts.maxPods);
    if (!/^\d+$/.test(opts.maxPods) || !Number.isSafeInteger(maxPods) || maxPods < 1) {
      throw new ValidationError([`--max-pods: "${opts.maxPods}" is not a positive integer`]);
    }
  }
  return inputLimits({ maxPods, ignoreUnknownKinds: opts.ignoreUnknown === true });
}
