// Where a disruption sweep cut short by its deadline stopped (docs/disruption.md, A deadline for the sweep). The
// store keeps one per cluster; the next sweep's consolidation starts there.

/** The consolidation candidate the next sweep starts from, kept as a position in the candidates' order (savings
 * ratio, price over disruption cost, highest first; then price; then name), so it still places the next sweep when
 * that node has gone. */
export interface SweepCursor {
  node: string;
  price: number;
  /** The node's disruption cost as the savings ratio reads it (the per-node cost plus its pods' eviction costs). */
  rescheduleCost: number;
  /** Epoch ms of the sweep that stopped. */
  at: number;
}

/** A cursor read back from storage, or undefined when it is not one (written by another version, such as one that
 * ordered by the lifetime-weighted disruption cost, or damaged): the sweep then starts from the beginning, as it would
 * without one. */
export function parseSweepCursor(value: unknown): SweepCursor | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.node !== 'string' || typeof v.price !== 'number' || typeof v.at !== 'number') return undefined;
  if (typeof v.rescheduleCost !== 'number' || !(v.rescheduleCost > 0)) return undefined;
  return { node: v.node, price: v.price, rescheduleCost: v.rescheduleCost, at: v.at };
}
