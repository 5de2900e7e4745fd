// Plain-text tables for terminal output: columns padded to their widest cell, numbers right-aligned.

export type Align = 'left' | 'right';

export interface Column {
  header: string;
  align?: Align;
}

export function renderTable(columns: (Column | string)[], rows: (string | number)[][]): string {
  const cols = columns.map((c) => (typeof c === 'string' ? { header: c } : c));
  const cells = rows.map((r) => cols.map((_, i) => String(r[i] ?? '')));
  const widths = cols.map((c, i) => Math.max(c.header.length, ...cells.map((r) => (r[i] as string).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (cols[i]?.align === 'right' ? v.padStart(widths[i] as number) : v.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  return [line(cols.map((c) => c.header)), ...cells.map(line)].join('\n');
}

/** Dollars per hour with enough digits for cheap spot nodes. */
export const formatPrice = (dollars: number): string => `$${dollars.toFixed(4)}`;

/** A claim's price, `~`-prefixed when the catalog estimated it (docs/catalog.md, "Spot prices are estimates"). */
export const formatClaimPrice = (c: { pricePerHour: number; priceSource?: string }): string =>
  `${c.priceSource === 'estimate' ? '~' : ''}${formatPrice(c.pricePerHour)}`;

/** The line under a table with estimated prices, or nothing when every price is the catalog's own. */
export function estimateNote(claims: readonly { priceSource?: string }[]): string[] {
  const n = claims.filter((c) => c.priceSource === 'estimate').length;
  if (n === 0) return [];
  return [
    `~ marks ${n} estimated price(s): the catalog derives spot (and Windows) prices instead of reading them from ` +
      'AWS; totals that include them are estimates too. `karpless catalog refresh` reads real ones.',
  ];
}

/** Rounds away float noise from summed prices so JSON output is stable. */
export const roundPrice = (dollars: number): number => Math.round(dollars * 1e6) / 1e6;

/** The columns that say which new NodeClaim a row is and where it runs, first in every NodeClaim table. */
export const CLAIM_COLUMNS = ['NODECLAIM', 'NODEPOOL', 'INSTANCE TYPE', 'CAPACITY', 'ZONE'];

export const claimCells = (c: {
  name: string;
  nodePool: string;
  instanceType: string;
  capacityType: string;
  zone: string;
}): string[] => [c.name, c.nodePool, c.instanceType, c.capacityType, c.zone];
