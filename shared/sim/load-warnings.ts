// Warnings about loaded manifests that are valid but cannot do what their author meant, judged against the catalog
// before anything is planned: a NodePool that can never launch a node, zones outside the catalog's region, and pods
// that request nothing (so the LP lower bound, and the cost/bound ratio, count only pod slots). The simulate report
// carries them in `warnings` and the summary (docs/api.md, "Load-time warnings").
import type { EC2NodeClass, NodePool, NodeSelectorRequirementWithMinValues } from '../api/karpenter';
import type { Pod } from '../api/kube';
import { podKey } from '../api/kube';
import { LabelOS, LabelZone } from '../api/labels';
import { requirementAllows } from '../api/selector';
import { isWindowsFamily } from '../api/windows';
import type { InstanceType } from '../catalog/types';
import { amiFamilyOf } from '../catalog/volumes';
import { allowedOfferings, podRequests, Requirements, typeCompatible, whyNoInstanceTypes } from '../scheduling';

/** The region a catalog covers and the zones it offers. */
export interface CatalogScope {
  region: string;
  zones: readonly string[];
  /** How messages name the catalog: "the embedded catalog (1345 types, us-east-1, snapshot 2026-07-20)". */
  name?: string;
}

const NEVER = 'this NodePool can never launch a node';
const REQS = 'spec.template.spec.requirements';

/**
 * Per NodePool, the first reason it can never launch, from the most specific: a template label its own requirements
 * exclude, two requirements that exclude each other, zones outside the catalog's region, an OS the catalog has no
 * instance types for, then no instance type or offering meeting its requirements together.
 */
export function nodePoolWarnings(
  nodePools: readonly NodePool[],
  nodeClasses: readonly EC2NodeClass[],
  typesByPool: ReadonlyMap<string, readonly InstanceType[]>,
  scope?: CatalogScope,
): string[] {
  const out: string[] = [];
  for (const pool of nodePools) {
    const types = typesByPool.get(pool.metadata.name) ?? [];
    const nodeClass = nodeClasses.find((c) => c.metadata.name === pool.spec.template.spec.nodeClassRef.name);
    const why =
      labelContradiction(pool) ??
      requirementContradiction(pool) ??
      (scope ? foreignZones(pool, scope) : undefined) ??
      missingOs(pool, nodeClass, types) ??
      noOffering(pool, types, scope);
    if (why) out.push(`NodePool/${pool.metadata.name}: ${why}`);
  }
  return out;
}

function labelContradiction(pool: NodePool): string | undefined {
  const labels = pool.spec.template.metadata?.labels ?? {};
  const requirements = pool.spec.template.spec.requirements ?? [];
  for (const [key, value] of Object.entries(labels)) {
    const i = requirements.findIndex((r) => r.key === key && !requirementAllows(r, value));
    if (i < 0) continue;
    return (
      `spec.template.metadata.labels["${key}"] is "${value}", but ${REQS}[${i}] (${show(requirements[i])}) ` +
      `excludes it, and every node of the pool carries its template labels: ${NEVER}`
    );
  }
  return undefined;
}

function requirementContradiction(pool: NodePool): string | undefined {
  const requirements = pool.spec.template.spec.requirements ?? [];
  for (let i = 0; i < requirements.length; i++) {
    for (let j = i + 1; j < requirements.length; j++) {
      const a = requirements[i] as NodeSelectorRequirementWithMinValues;
      const b = requirements[j] as NodeSelectorRequirementWithMinValues;
      if (a.key !== b.key || !excludesEachOther(a, b)) continue;
      return `${REQS}[${i}] (${show(a)}) and ${REQS}[${j}] (${show(b)}) allow no common value: ${NEVER}`;
    }
  }
  return undefined;
}

/** Two In lists (or an In list and Exists-like operators) with no value in common; DoesNotExist is deliberate. */
function excludesEachOther(a: NodeSelectorRequirementWithMinValues, b: NodeSelectorRequirementWithMinValues): boolean {
  if (a.operator === 'DoesNotExist' || b.operator === 'DoesNotExist') return false;
  const inList = a.operator === 'In' ? a : b.operator === 'In' ? b : undefined;
  if (!inList) return false;
  const other = inList === a ? b : a;
  return !(inList.values ?? []).some((v) => requirementAllows(other, v));
}

/** Zones the pool allows that belong to another region than the catalog's: nothing is offered there. */
function foreignZones(pool: NodePool, scope: CatalogScope): string | undefined {
  const r = (pool.spec.template.spec.requirements ?? []).find((q) => q.key === LabelZone && q.operator === 'In');
  const foreign = (r?.values ?? []).filter((z) => isForeignZone(z, scope));
  if (!r || foreign.length === 0) return undefined;
  const all = foreign.length === (r.values ?? []).length;
  return `${LabelZone} ${foreign.join(', ')} ${all ? 'are all' : 'include zones'} outside the catalog's region ${scope.region}${all ? `: ${NEVER}` : ''}; ${catalogHint(foreign, scope)}`;
}

/** Pods that select zones of another region (nodeSelector or required node affinity): no NodePool offers them. */
export function podZoneWarnings(pods: readonly Pod[], scope: CatalogScope): string[] {
  const byZone = new Map<string, string[]>();
  for (const pod of pods) {
    for (const zone of podZones(pod)) {
      if (!isForeignZone(zone, scope)) continue;
      byZone.set(zone, [...(byZone.get(zone) ?? []), podKey(pod)]);
    }
  }
  if (byZone.size === 0) return [];
  const zones = [...byZone.keys()].sort();
  const pods_ = [...new Set([...byZone.values()].flat())];
  return [
    `${pods_.length} pod(s) (${sample(pods_)}) select ${LabelZone} ${zones.join(', ')}, outside the catalog's region ${scope.region}; ${catalogHint(zones, scope)}`,
  ];
}

function podZones(pod: Pod): string[] {
  const zones = [pod.spec.nodeSelector?.[LabelZone]].filter((z): z is string => z !== undefined);
  const terms = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  for (const term of terms ?? []) {
    for (const e of term.matchExpressions ?? [])
      if (e.key === LabelZone && e.operator === 'In') zones.push(...(e.values ?? []));
  }
  return zones;
}

function isForeignZone(zone: string, scope: CatalogScope): boolean {
  if (scope.zones.includes(zone)) return false;
  const region = regionOfZone(zone);
  return region !== undefined && region !== scope.region;
}

/** "eu-west-1a" → "eu-west-1", "us-east-1-bos-1a" (a Local Zone) → "us-east-1"; undefined for other strings. */
export function regionOfZone(zone: string): string | undefined {
  return /^([a-z]{2}(?:-[a-z]+)+-\d+)(?:-[a-z]+-\d+)?[a-z]$/.exec(zone)?.[1];
}

function catalogHint(zones: readonly string[], scope: CatalogScope): string {
  const regions = [...new Set(zones.flatMap((z) => regionOfZone(z) ?? []))].sort();
  const region = regions[0] ?? 'REGION';
  return (
    `the catalog offers ${scope.zones.join(', ')}; build one for ${regions.join(', ')} with ` +
    `\`karpless catalog refresh --region ${region}\` (writes catalog-${region}.json) and pass ` +
    `\`--catalog catalog-${region}.json\``
  );
}

/** The OS the pool requires that its EC2NodeClass's nodes do not run, or Windows AMIs the catalog cannot price. */
function missingOs(
  pool: NodePool,
  nodeClass: EC2NodeClass | undefined,
  types: readonly InstanceType[],
): string | undefined {
  const family = amiFamilyOf(nodeClass);
  if (isWindowsFamily(family) && types.length === 0) {
    return `its EC2NodeClass ${nodeClass?.metadata.name} runs ${family} AMIs, but the catalog has no Windows prices (\`karpless catalog refresh\` builds one with them): ${NEVER}`;
  }
  const offered = [...new Set(types.flatMap((t) => t.labels[LabelOS] ?? []))].sort();
  if (offered.length === 0) return undefined;
  const requirements = pool.spec.template.spec.requirements ?? [];
  const i = requirements.findIndex((r) => r.key === LabelOS && !offered.some((os) => requirementAllows(r, os)));
  if (i >= 0) {
    const name = nodeClass?.metadata.name ?? pool.spec.template.spec.nodeClassRef.name;
    return `${REQS}[${i}] (${show(requirements[i])}): its EC2NodeClass ${name} runs ${family} AMIs, whose nodes are ${offered.join(', ')}: ${NEVER}`;
  }
  return undefined;
}

/**
 * No type of this catalog serves the pool. That is a fact about the catalog, not about AWS (a snapshot can lack
 * types AWS sells), so the message names the catalog and how to refresh it rather than saying "never".
 */
function noOffering(pool: NodePool, types: readonly InstanceType[], scope?: CatalogScope): string | undefined {
  const labels = pool.spec.template.metadata?.labels;
  const reqs = Requirements.from(pool.spec.template.spec.requirements ?? []).addAll(Requirements.fromLabels(labels));
  const fits = types.some(
    (it) => allowedOfferings(it.offerings, reqs).length > 0 && typeCompatible({ it, offerings: it.offerings }, reqs),
  );
  if (fits) return undefined;
  const why = whyNoInstanceTypes(types, reqs, pool.spec.template.spec.nodeClassRef.name, () => true);
  const region = scope?.region ?? 'REGION';
  return (
    `no instance type in ${scope?.name ?? 'the catalog'} meets its requirements (${why}); if AWS offers one, ` +
    `build a current catalog with \`karpless catalog refresh --region ${region}\` and pass \`--catalog catalog-${region}.json\``
  );
}

/**
 * Pods that request no CPU and no memory: the solver packs them by pod slots alone, and the LP lower bound counts
 * only what pods request, so the bound (and "N× the bound") then measures pods per node, not packing.
 */
export function requestlessPods(pods: readonly Pod[]): Pod[] {
  return pods.filter((p) => {
    if (plainlyRequests(p)) return false;
    const r = podRequests(p);
    return !(r.cpu && r.cpu > 0) && !(r.memory && r.memory > 0);
  });
}

/** Whether a running container plainly requests CPU or memory, so the pod is not requestless without adding up its
 * requests (read for every pending pod of a large input): at least one millicore of CPU (smaller ones round to zero),
 * or any memory above zero (bytes round up). Anything else is left to podRequests. */
function plainlyRequests(pod: Pod): boolean {
  for (const c of pod.spec.containers ?? []) {
    const q = c.resources?.requests;
    if (q && (PLAIN_CPU.test(String(q.cpu ?? '')) || PLAIN_MEMORY.test(String(q.memory ?? '')))) return true;
  }
  return false;
}

/** One core or one millicore and more, written plainly (`2`, `1.5`, `250m`). */
const PLAIN_CPU = /^[1-9][0-9]*(?:\.[0-9]*)?m?$/;
/** A positive number of bytes, with or without a suffix (`512Mi`, `1G`, `4096`). */
const PLAIN_MEMORY = /^[1-9][0-9]*(?:\.[0-9]*)?(?:[kMGTPE]i?|Ki)?$/;

export function requestlessWarning(pods: readonly Pod[], total: number): string[] {
  if (pods.length === 0) return [];
  const keys = pods.map(podKey);
  return [
    `${pods.length} of ${total} pod(s) request no CPU or memory (${sample(keys)}): they are packed by pod count ` +
      'alone, and the LP lower bound counts only requested resources, so the bound and the "× the bound" ratio ' +
      'measure pods per node, not how well CPU and memory are packed; set resources.requests to plan for what they use',
  ];
}

function sample(keys: readonly string[]): string {
  return keys.length <= 3 ? keys.join(', ') : `${keys.slice(0, 3).join(', ')} and ${keys.length - 3} more`;
}

function show(r: NodeSelectorRequirementWithMinValues | undefined): string {
  if (!r) return '';
  return `${r.key} ${r.operator}${r.values?.length ? ` [${r.values.join(', ')}]` : ''}`;
}
