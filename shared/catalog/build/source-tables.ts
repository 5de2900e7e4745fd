// The checked-in source tables (shared/catalog/build/sources/*.tsv): tab-separated, one row per type (or per region
// and type for prices), `#` lines name where the rows came from. Compact so diffs of a refresh stay reviewable.
// docs/catalog.md, "Sources".
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReferenceType, VpcLimit } from './karpenter-sources';

/** Label keys under this prefix are written as `~key`; the others in full. */
const PREFIX = 'karpenter.k8s.aws/instance-';
const DIR = fileURLToPath(new URL('./sources/', import.meta.url));

const pairs = (record: Record<string, string>, shorten: boolean) =>
  Object.entries(record)
    .map(([k, v]) => `${shorten && k.startsWith(PREFIX) ? `~${k.slice(PREFIX.length)}` : k}=${v}`)
    .join(';');

function unpairs(text: string, where: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of text.split(';')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new Error(`${where}: "${pair}" is not key=value`);
    const key = pair.slice(0, eq);
    out[key.startsWith('~') ? `${PREFIX}${key.slice(1)}` : key] = pair.slice(eq + 1);
  }
  return out;
}

export function encodeReference(types: ReferenceType[]): string {
  return types.map((t) => `${t.name}\t${pairs(t.labels, true)}\t${pairs(t.resources, false)}\n`).join('');
}

export function encodePrices(prices: Map<string, Map<string, number>>): string {
  const rows: string[] = [];
  for (const [region, byType] of prices) {
    for (const [name, price] of [...byType].sort(([a], [b]) => a.localeCompare(b))) {
      rows.push(`${region}\t${name}\t${price}\n`);
    }
  }
  return rows.join('');
}

export function encodeLimits(limits: VpcLimit[]): string {
  return limits
    .map((l) =>
      [l.name, l.interfaces, l.ipv4PerInterface, l.branchInterfaces, l.hypervisor, l.bareMetal].join('\t').concat('\n'),
    )
    .join('');
}

/** Rows of a table, split on tabs, with `#` lines and the file's name and line for errors. */
function rows(file: string): { cells: string[]; where: string }[] {
  const text = readFileSync(join(DIR, file), 'utf8');
  return text
    .split('\n')
    .map((line, i) => ({ line, where: `${file}:${i + 1}` }))
    .filter(({ line }) => line !== '' && !line.startsWith('#'))
    .map(({ line, where }) => ({ cells: line.split('\t'), where }));
}

/** The header lines of a table: where its rows came from. */
export function tableOrigin(file: string): string[] {
  return readFileSync(join(DIR, file), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('#'))
    .map((l) => l.slice(2));
}

export function readReference(): ReferenceType[] {
  return rows('reference-us-east-1.tsv').map(({ cells: [name, labels, resources], where }) => {
    if (!name || labels === undefined || resources === undefined) throw new Error(`${where}: expected 3 columns`);
    return { name, labels: unpairs(labels, where), resources: unpairs(resources, where) };
  });
}

/** region → type → Linux on-demand $/h. */
export function readPrices(): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const { cells, where } of rows('prices.tsv')) {
    const [region, name, price] = cells as [string, string, string];
    const value = Number(price);
    if (!(value >= 0)) throw new Error(`${where}: price "${price}" is not a number`);
    const byType = out.get(region) ?? new Map<string, number>();
    out.set(region, byType);
    byType.set(name, value);
  }
  return out;
}

export function readLimits(): Map<string, VpcLimit> {
  const out = new Map<string, VpcLimit>();
  for (const { cells, where } of rows('vpc-limits.tsv')) {
    const [name, interfaces, ipv4, branch, hypervisor, metal] = cells;
    if (!name || metal === undefined) throw new Error(`${where}: expected 6 columns`);
    out.set(name, {
      name,
      interfaces: Number(interfaces),
      ipv4PerInterface: Number(ipv4),
      branchInterfaces: Number(branch),
      hypervisor: hypervisor ?? '',
      bareMetal: metal === 'true',
    });
  }
  return out;
}
