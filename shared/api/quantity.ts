// Kubernetes resource quantities. The engine works in numbers: CPU in millicores, everything else in base units
// (bytes for memory and storage, counts for pods and devices). Strings appear only at the edges.

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};
// Kubernetes' quantity grammar exactly (k8s.io/apimachinery resource.Quantity): a signed decimal number, then one
// binary-SI suffix, decimal-SI suffix or decimal exponent. No spaces: the API server refuses "1 ".
const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/;
/** Quantities beyond int64 in base units are outside what a Kubernetes object can hold. */
const MAX_MAGNITUDE = 2 ** 63;

export class QuantityError extends Error {}

/** Parses a quantity into its value in base units ("500m" → 0.5, "1Gi" → 1073741824). */
export function parseQuantity(input: string | number): number {
  if (typeof input === 'number') return inRange(input, String(input));
  const match = QUANTITY.exec(input);
  if (!match) throw new QuantityError(`"${input}" is not a valid quantity (for example 500m, 2, 512Mi, 1Gi)`);
  const [, num, exp, suffix] = match;
  const base = Number(num);
  if (exp) return inRange(base * 10 ** Number(exp.slice(1)), `"${input}"`);
  const mult = suffix ? (BINARY[suffix] ?? DECIMAL[suffix] ?? 1) : 1;
  return inRange(base * mult, `"${input}"`);
}

function inRange(value: number, shown: string): number {
  if (!Number.isFinite(value) || Math.abs(value) >= MAX_MAGNITUDE) {
    throw new QuantityError(`${shown} is out of range (a quantity must be finite and below 2^63 in base units)`);
  }
  return value;
}

/** Parses a quantity for a named resource into engine units: millicores for cpu, base units otherwise. */
export function parseResource(name: string, input: string | number): number {
  const value = parseQuantity(input);
  return name === 'cpu' ? Math.round(value * 1000) : Math.ceil(value);
}

/** Formats engine units back into a canonical Kubernetes quantity string. */
export function formatResource(name: string, value: number): string {
  if (name === 'cpu') {
    return value % 1000 === 0 ? String(value / 1000) : `${Math.round(value)}m`;
  }
  if (isByteResource(name)) return formatBytes(value);
  return String(Math.round(value));
}

export function formatBytes(bytes: number): string {
  if (bytes === 0) return '0';
  for (const [suffix, mult] of [
    ['Ti', 2 ** 40],
    ['Gi', 2 ** 30],
    ['Mi', 2 ** 20],
    ['Ki', 2 ** 10],
  ] as const) {
    if (bytes % mult === 0) return `${bytes / mult}${suffix}`;
  }
  return bytes >= 2 ** 20 && bytes % 2 ** 10 === 0 ? `${bytes / 2 ** 10}Ki` : String(Math.round(bytes));
}

function isByteResource(name: string): boolean {
  return name === 'memory' || name === 'ephemeral-storage' || name === 'storage' || name.startsWith('hugepages-');
}

const DURATION_PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g;
const DURATION_UNIT: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1e3, m: 6e4, h: 3.6e6 };

/** Parses a Go duration ("720h", "1m30s") into milliseconds; "Never" is Infinity. */
export function parseDuration(input: string): number {
  const text = input.trim();
  if (text === 'Never') return Number.POSITIVE_INFINITY;
  if (text === '0' || text === '') return 0;
  let total = 0;
  let consumed = 0;
  for (const m of text.matchAll(DURATION_PART)) {
    if (m.index !== consumed) break;
    total += Number(m[1]) * (DURATION_UNIT[m[2] as string] ?? 0);
    consumed += m[0].length;
  }
  if (consumed !== text.length)
    throw new QuantityError(`"${input}" is not a valid duration (for example 30s, 5m, 720h or Never)`);
  return total;
}

/** Formats milliseconds as a compact Go-style duration ("1h2m3s"). */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return 'Never';
  if (ms === 0) return '0s';
  let rest = Math.round(ms / 1000);
  const h = Math.floor(rest / 3600);
  rest -= h * 3600;
  const m = Math.floor(rest / 60);
  const s = rest - m * 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s || (!h && !m) ? `${s}s` : ''}`;
}
