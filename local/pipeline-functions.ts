// The Lambda functions the local pipeline runs, and the record of each invocation.
import { FUNCTION_NAMES, type FunctionName } from '../stacks/functions';

/** Lambda functions as the pipeline runs them: the deployed ones. */
export type PipelineFunction = FunctionName;

/** Every function with a handler module: the deployed ones. */
export type InvokableFunction = PipelineFunction;
export const INVOKABLE_FUNCTIONS: readonly InvokableFunction[] = FUNCTION_NAMES;

export interface Invocation {
  fn: PipelineFunction;
  at: number;
  received: number;
  failed: number;
  handlerMs: number;
  error?: string;
}
