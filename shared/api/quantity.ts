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
  return plainQuantity(input) ?? quantityByGrammar(input);
}

/** A quantity text read by the grammar itself (`parseQuantity` reads the plain forms without it; a test holds the two
 * to the same answers). */
export function quantityByGrammar(input: string): number {
  const match = QUANTITY.exec(input);
  if (!match) throw new QuantityError(`"${input}" is not a valid quantity (for example 500m, 2, 512Mi, 1Gi)`);
  const [, num, exp, suffix] = match;
  const base = Number(num);
  if (exp) return inRange(base * 10 ** Number(exp.slice(1)), `"${input}"`);
  const mult = suffix ? (BINARY[suffix] ?? DECIMAL[suffix] ?? 1) : 1;
  return inRange(base * mult, `"${input}"`);
}

/** The binary-SI suffixes by their first letter (the second is always "i"). */
const BINARY_BY_LEAD: Record<string, number> = {
  K: 2 ** 10,
  M: 2 ** 20,
  G: 2 ** 30,
  T: 2 ** 40,
  P: 2 ** 50,
  E: 2 ** 60,
};
/** Longest run of digits read as an exact integer (below 2^53). */
const PLAIN_DIGITS = 15;

/**
 * A quantity of plain digits and at most one SI suffix ("500m", "2", "512Mi"), the form nearly every pod's requests
 * take, read without the regular expression and its match (each a few objects, for every pod whose requests are new:
 * docs/performance.md, "Distinct requests: what survives the setup"). The value is the one the grammar's
 * path computes. Anything else (a sign, a fraction, an exponent, more digits, an unknown suffix) is undefined, for
 * that path to read or refuse.
 */
function plainQuantity(s: string): number | undefined {
  const n = s.length;
  let i = 0;
  let digits = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) break;
    digits = digits * 10 + (c - 48);
  }
  if (i === 0 || i > PLAIN_DIGITS) return undefined;
  let mult: number | undefined;
  if (i === n) mult = 1;
  else if (i === n - 1) mult = DECIMAL[s.charAt(i)];
  else if (i === n - 2 && s.charCodeAt(i + 1) === 105) mult = BINARY_BY_LEAD[s.charAt(i)];
  if (mult === undefined) return undefined;
  return inRange(digits * mult, `"${s}"`);
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
