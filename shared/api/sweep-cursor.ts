// Where a disruption sweep cut short by its deadline stopped (docs/disruption.md, A deadline for the sweep). The
// store keeps one per cluster; the next sweep's consolidation starts there.

/** The consolidation candidate the next sweep starts from, kept as a position in the candidates' order (disruption
 * cost, then price, then name), so it still places the next sweep when that node has gone. */
export interface SweepCursor {
  node: string;
  disruptionCost: number;
  price: number;
  /** Epoch ms of the sweep that stopped. */
  at: number;
}

/** A cursor read back from storage, or undefined when it is not one (written by another version, or damaged): the
 * sweep then starts from the beginning, as it would without one. */
export function parseSweepCursor(value: unknown): SweepCursor | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.node !== 'string' || typeof v.disruptionCost !== 'number' || typeof v.price !== 'number')
    return undefined;
  if (typeof v.at !== 'number') return undefined;
  return { node: v.node, disruptionCost: v.disruptionCost, price: v.price, at: v.at };
}
