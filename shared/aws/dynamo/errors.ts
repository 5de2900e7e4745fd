// DynamoDB failure classification shared by the store's writes.
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';

export function isConditionFailure(err: unknown): boolean {
  if (err instanceof ConditionalCheckFailedException) return true;
  if (err instanceof TransactionCanceledException) {
    return (err.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed');
  }
  // dynalite and older SDK paths may surface the plain service error name.
  return (err as { name?: string } | undefined)?.name === 'ConditionalCheckFailedException';
}

/** DynamoDB's refusal of an item over its 400 KB limit (a ValidationException; dynalite says the same). */
export function isItemTooLarge(err: unknown): boolean {
  const e = err as { name?: string; message?: string } | undefined;
  return e?.name === 'ValidationException' && /item size/i.test(e.message ?? '');
}
