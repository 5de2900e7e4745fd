// The catalog as one EC2NodeClass sees it. Called on every provisioning pass, so the per-type work (labels, base
// offerings, allocatable) is memoized per catalog object and per allocatable-relevant node class settings; a warm
// call only re-marks the offerings named in `unavailable`. Returned objects are shared: treat them as read-only.
// Windows node classes see only the types sold with Windows, labelled kubernetes.io/os=windows and with their
// windows-build, at Windows prices (docs/catalog.md, Windows).
import type { EC2NodeClass } from '../api/karpenter';
import { LabelOS, LabelWindowsBuild } from '../api/labels';
import { isWindowsFamily, WINDOWS_FAMILIES } from '../api/windows';
import { allocatableSettings, shapeWith } from './allocatable';
import { EBS_CSI_DRIVER, ebsVolumeLimit } from './ebs-limits';
import { labelsFor } from './labels';
import { offeringsFor, unavailableKeys } from './offerings';
import type { Catalog, InstanceType, InstanceTypeInfo, NodeOS, Offering, UnavailableOffering } from './types';
import { amiFamilyOf } from './volumes';

export interface InstanceTypeOptions {
  unavailable?: readonly UnavailableOffering[];
  /** Epoch milliseconds; unavailable entries that expired by then are ignored. Defaults to Date.now(). */
  now?: number;
}

const MAX_VARIANTS_PER_CATALOG = 64;
const variants = new WeakMap<Catalog, Map<string, InstanceType[]>>();
type TypeFacts = { labels: Record<string, string>; offerings: Offering[] };
const perType: Record<NodeOS, WeakMap<InstanceTypeInfo, TypeFacts>> = { linux: new WeakMap(), windows: new WeakMap() };

/** Only these node class settings change capacity, overhead or volume limits; anything else shares the cached view. */
export function allocatableSettingsKey(nodeClass?: EC2NodeClass): string {
  if (!nodeClass) return '';
  const spec = nodeClass.spec;
  return JSON.stringify([
    spec.kubelet ?? null,
    spec.blockDeviceMappings ?? null,
    amiFamilyOf(nodeClass),
    spec.instanceStorePolicy ?? null,
  ]);
}

function typeFacts(info: InstanceTypeInfo, catalog: Catalog, os: NodeOS): TypeFacts {
  let facts = perType[os].get(info);
  if (!facts) {
    facts = { labels: labelsFor(info, catalog.region, os), offerings: offeringsFor(info, catalog, undefined, os) };
    perType[os].set(info, facts);
  }
  return facts;
}

function buildView(catalog: Catalog, nodeClass?: EC2NodeClass): InstanceType[] {
  const settings = allocatableSettings(nodeClass);
  const family = amiFamilyOf(nodeClass);
  const build = isWindowsFamily(family) ? WINDOWS_FAMILIES[family].build : undefined;
  const types = build ? catalog.types.filter((info) => info.windows) : catalog.types;
  return types.map((info) => {
    const facts = typeFacts(info, catalog, build ? 'windows' : 'linux');
    const labels = build ? { ...facts.labels, [LabelWindowsBuild]: build } : facts.labels;
    const shape = shapeWith(info, settings);
    const volumeLimits = { [EBS_CSI_DRIVER]: ebsVolumeLimit(info, nodeClass) };
    return { name: info.name, info, labels, ...shape, offerings: facts.offerings, volumeLimits };
  });
}

function cachedView(catalog: Catalog, nodeClass?: EC2NodeClass): InstanceType[] {
  let byKey = variants.get(catalog);
  if (!byKey) {
    byKey = new Map();
    variants.set(catalog, byKey);
  }
  const key = allocatableSettingsKey(nodeClass);
  let view = byKey.get(key);
  if (!view) {
    view = buildView(catalog, nodeClass);
    if (byKey.size >= MAX_VARIANTS_PER_CATALOG) {
      const oldest = byKey.keys().next().value;
      if (oldest !== undefined) byKey.delete(oldest);
    }
    byKey.set(key, view);
  }
  return view;
}

/** Every instance type of the catalog with capacity, allocatable and offerings for this node class. */
export function instanceTypesFor(
  catalog: Catalog,
  nodeClass?: EC2NodeClass,
  opts: InstanceTypeOptions = {},
): InstanceType[] {
  const view = cachedView(catalog, nodeClass);
  if (!opts.unavailable?.length) return view;
  const keys = unavailableKeys(opts.unavailable, opts.now ?? Date.now());
  if (keys.size === 0) return view;
  const affected = new Set(opts.unavailable.map((u) => u.instanceType));
  const os: NodeOS = view[0]?.labels[LabelOS] === 'windows' ? 'windows' : 'linux';
  return view.map((t) => (affected.has(t.name) ? { ...t, offerings: offeringsFor(t.info, catalog, keys, os) } : t));
}
