// The problems a ValidationError lists, for tests that assert on the exact messages bad input gets.
import { ValidationError } from '../shared/errors';

/** Runs `run` and returns the problems of the ValidationError it throws; fails when it throws nothing or another error. */
export function validationProblems(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.problems;
    throw error;
  }
  throw new Error('expected a ValidationError');
}
