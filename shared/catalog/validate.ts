// Checks a catalog read from JSON before the engine trusts it. Every problem names the file and the field path
// ("catalog.json: types[3].vcpu: must be a positive number"); the first few problems are reported together.
import { ValidationError } from '../errors';
import type { Catalog } from './types';

const MAX_PROBLEMS = 20;
type Json = Record<string, unknown>;

class Problems {
  readonly list: string[] = [];
  constructor(private readonly file: string) {}
  add(path: string, message: string): void {
    if (this.list.length < MAX_PROBLEMS) this.list.push(`${this.file}: ${path}: ${message}`);
  }
  get full(): boolean {
    return this.list.length >= MAX_PROBLEMS;
  }
}

const at = (path: string, key: string): string => (path ? `${path}.${key}` : key);
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function requireString(p: Problems, o: Json, key: string, path: string, allowEmpty = false): void {
  const v = o[key];
  if (typeof v !== 'string' || (!allowEmpty && v === '')) p.add(at(path, key), 'must be a non-empty string');
}

function requireNumber(p: Problems, o: Json, key: string, path: string, kind: 'positive' | 'non-negative'): void {
  const v = o[key];
  if (!isNumber(v) || (kind === 'positive' ? v <= 0 : v < 0)) p.add(at(path, key), `must be a ${kind} number`);
}

function optionalNumber(p: Problems, o: Json, key: string, path: string): void {
  if (o[key] !== undefined) requireNumber(p, o, key, path, 'non-negative');
}

function requireBoolean(p: Problems, o: Json, key: string, path: string, optional = false): void {
  const v = o[key];
  if (optional && v === undefined) return;
  if (typeof v !== 'boolean') p.add(at(path, key), 'must be true or false');
}

function checkDevice(p: Problems, o: Json, key: 'gpu' | 'accelerator', path: string): void {
  const device = o[key];
  if (device === undefined) return;
  const where = at(path, key);
  if (!isObject(device)) {
    p.add(where, 'must be an object');
    return;
  }
  requireNumber(p, device, 'count', where, 'non-negative');
  requireString(p, device, 'name', where);
  requireString(p, device, 'manufacturer', where);
  if (key === 'gpu') requireNumber(p, device, 'memoryMiB', where, 'non-negative');
  else optionalNumber(p, device, 'cores', where);
}

function checkType(p: Problems, t: unknown, path: string, zones: Set<string>, seen: Set<string>): void {
  if (!isObject(t)) {
    p.add(path, 'must be an object');
    return;
  }
  requireString(p, t, 'name', path);
  if (typeof t.name === 'string') {
    if (seen.has(t.name)) p.add(`${path}.name`, `duplicate instance type "${t.name}"`);
    seen.add(t.name);
  }
  for (const key of ['family', 'category', 'size']) requireString(p, t, key, path);
  requireNumber(p, t, 'generation', path, 'non-negative');
  requireNumber(p, t, 'vcpu', path, 'positive');
  requireNumber(p, t, 'memoryMiB', path, 'positive');
  if (t.arch !== 'amd64' && t.arch !== 'arm64') p.add(`${path}.arch`, 'must be one of amd64, arm64');
  requireNumber(p, t, 'maxEnis', path, 'positive');
  if (!isNumber(t.ipv4PerEni) || t.ipv4PerEni < 1) p.add(`${path}.ipv4PerEni`, 'must be a number of at least 1');
  if (!['nitro', 'xen', ''].includes(t.hypervisor as string)) {
    p.add(`${path}.hypervisor`, 'must be one of nitro, xen or ""');
  }
  requireBoolean(p, t, 'bareMetal', path);
  requireBoolean(p, t, 'currentGeneration', path);
  requireBoolean(p, t, 'encryptionInTransit', path, true);
  requireBoolean(p, t, 'capabilityFlex', path, true);
  requireNumber(p, t, 'onDemandPrice', path, 'non-negative');
  for (const key of ['branchEnis', 'efa', 'localNvmeGiB', 'networkBandwidthMbps', 'ebsBandwidthMbps', 'cpuClockMhz']) {
    optionalNumber(p, t, key, path);
  }
  if (
    t.maxEbsAttachments !== undefined &&
    (!Number.isInteger(t.maxEbsAttachments) || (t.maxEbsAttachments as number) < 1)
  )
    p.add(`${path}.maxEbsAttachments`, 'must be a whole number of at least 1');
  if (t.ebsAttachmentLimitType !== undefined && !['shared', 'dedicated'].includes(t.ebsAttachmentLimitType as string))
    p.add(`${path}.ebsAttachmentLimitType`, 'must be one of shared, dedicated');
  if (t.cpuManufacturer !== undefined) requireString(p, t, 'cpuManufacturer', path);
  checkDevice(p, t, 'gpu', path);
  checkDevice(p, t, 'accelerator', path);
  if (!Array.isArray(t.zones)) p.add(`${path}.zones`, 'must be a list of zone names');
  else {
    t.zones.forEach((z, i) => {
      if (typeof z !== 'string' || !zones.has(z)) p.add(`${path}.zones[${i}]`, `"${String(z)}" is not a catalog zone`);
    });
  }
  checkSpotPrices(p, t.spotPrice, `${path}.spotPrice`, zones);
  checkWindows(p, t.windows, `${path}.windows`, zones);
}

function checkSpotPrices(p: Problems, spot: unknown, path: string, zones: Set<string>): void {
  if (!isObject(spot)) {
    p.add(path, 'must be an object of zone to price');
    return;
  }
  for (const [zone, price] of Object.entries(spot)) {
    if (!zones.has(zone)) p.add(`${path}.${zone}`, 'is not a catalog zone');
    else if (!isNumber(price) || price < 0) p.add(`${path}.${zone}`, 'must be a non-negative number');
  }
}

/** Windows prices are optional; when present they carry both kinds, like the Linux ones. */
function checkWindows(p: Problems, windows: unknown, path: string, zones: Set<string>): void {
  if (windows === undefined) return;
  if (!isObject(windows)) {
    p.add(path, 'must be an object with onDemandPrice and spotPrice');
    return;
  }
  requireNumber(p, windows, 'onDemandPrice', path, 'non-negative');
  checkSpotPrices(p, windows.spotPrice, `${path}.spotPrice`, zones);
}

/** Validates parsed JSON as a Catalog; throws a ValidationError listing what is wrong. */
export function validateCatalog(data: unknown, file: string): Catalog {
  const p = new Problems(file);
  // Something that is not a catalog at all gets one line, not one per missing field.
  if (!isObject(data) || (data.region === undefined && data.zones === undefined && data.types === undefined)) {
    throw new ValidationError([`${file}: must be a JSON object with region, zones and types`]);
  }
  requireString(p, data, 'region', '');
  const zones = new Set<string>();
  if (!Array.isArray(data.zones) || data.zones.length === 0) p.add('zones', 'must be a non-empty list');
  else {
    data.zones.forEach((z, i) => {
      if (!isObject(z)) {
        p.add(`zones[${i}]`, 'must be an object with name and id');
        return;
      }
      requireString(p, z, 'name', `zones[${i}]`);
      requireString(p, z, 'id', `zones[${i}]`);
      if (typeof z.name === 'string') zones.add(z.name);
    });
  }
  for (const key of ['generatedAt', 'source']) {
    if (data[key] !== undefined && typeof data[key] !== 'string') p.add(key, 'must be a string');
  }
  checkEstimated(p, data.estimatedPrices);
  if (!Array.isArray(data.types) || data.types.length === 0) p.add('types', 'must be a non-empty list');
  else {
    const seen = new Set<string>();
    for (let i = 0; i < data.types.length && !p.full; i++) checkType(p, data.types[i], `types[${i}]`, zones, seen);
  }
  if (p.list.length > 0) throw new ValidationError(p.list);
  const catalog = data as unknown as Catalog;
  catalog.generatedAt ??= '';
  catalog.source ??= '';
  return catalog;
}

function checkEstimated(p: Problems, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    p.add('estimatedPrices', 'must be an object with optional boolean spot and windows');
    return;
  }
  for (const [key, v] of Object.entries(value)) {
    if (key !== 'spot' && key !== 'windows') p.add(`estimatedPrices.${key}`, 'is not a known field (spot, windows)');
    else if (typeof v !== 'boolean') p.add(`estimatedPrices.${key}`, 'must be true or false');
  }
}
