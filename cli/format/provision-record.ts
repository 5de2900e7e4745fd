// A Provision decision record as `karpless explain` shows it for one NodeClaim: the pods it was made for, what they
// request, the instance types it may launch as and the offering the plan priced it at, then the rest of the plan in
// a line. The record holds every claim of the plan; printing them all as JSON buried the one asked about.
import { formatResourceList, type ResourceList } from '../../shared/api/resources';
import type { PlannedOffering } from '../../shared/scheduling';
import { formatPrice } from './table';

interface PlannedClaim {
  name: string;
  nodePool?: string;
  pods?: string[];
  podCount?: number;
  requests?: ResourceList;
  instanceTypeOptions?: string[];
  cheapest?: PlannedOffering;
  alternatives?: PlannedOffering[];
}

/** The NodeOverlays behind one offering's price and its type's extended resources, as explain prints them. */
export function overlayText(o: PlannedOffering): string[] {
  const out: string[] = [];
  if (o.overlay) {
    const v = o.overlay;
    out.push(
      `NodeOverlay ${v.name} (weight ${v.weight}, ${v.adjustment}): ${formatPrice(v.basePrice)}/h -> ${formatPrice(o.price)}/h`,
    );
  }
  for (const [resource, c] of Object.entries(o.capacityOverlays ?? {})) {
    out.push(`NodeOverlay ${c.name} (weight ${c.weight}): capacity ${resource} ${c.quantity}`);
  }
  return out;
}

/** The detail keys provisionLines reads; explain summarizes any others. */
export const PROVISION_KEYS: readonly string[] = [
  'claims',
  'unschedulable',
  'unavailableOfferings',
  'skippedNodePools',
];

const FIRST_OPTIONS = 5;
/** A plan for thousands of pods has hundreds of claims; the line names the first few. */
const FIRST_OTHERS = 8;

function isPlannedClaim(x: unknown): x is PlannedClaim {
  return typeof x === 'object' && x !== null && typeof (x as PlannedClaim).name === 'string';
}

export function provisionLines(detail: Record<string, unknown>, nodeClaim: string): string[] {
  const claims = Array.isArray(detail.claims) ? detail.claims.filter(isPlannedClaim) : [];
  const own = claims.find((c) => c.name === nodeClaim);
  const out: string[] = [];
  if (own) {
    const pods = own.pods ?? [];
    const count = own.podCount ?? pods.length;
    const more = count > pods.length ? ` and ${count - pods.length} more` : '';
    out.push(pods.length ? `for ${count} pod(s): ${pods.join(', ')}${more}` : `for ${count} pod(s)`);
    const requests = Object.entries(formatResourceList(own.requests ?? {}))
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    if (requests) out.push(`requests (DaemonSets included): ${requests}`);
    const options = own.instanceTypeOptions ?? [];
    if (options.length) {
      const shown = options.slice(0, FIRST_OPTIONS).join(', ');
      out.push(
        `may launch as ${options.length} instance type(s), cheapest first: ${shown}${options.length > FIRST_OPTIONS ? ', ...' : ''}`,
      );
    }
    const c = own.cheapest;
    if (c) {
      out.push(
        `priced at ${c.instanceType} ${c.capacityType} in ${c.zone}, ${formatPrice(c.price)}/h (CreateFleet picks the lowest price among the options)`,
      );
      for (const line of overlayText(c)) out.push(`  ${line}`);
    }
    const alternatives = own.alternatives ?? [];
    if (alternatives.length) {
      const named = alternatives.map(
        (a) => `${a.instanceType} ${a.capacityType} in ${a.zone} ${formatPrice(a.price)}/h`,
      );
      out.push(`instead of: ${named.join(', ')}`);
      for (const a of alternatives) for (const line of overlayText(a)) out.push(`  ${a.instanceType}: ${line}`);
    }
  }
  const others = claims.filter((c) => c.name !== nodeClaim);
  if (others.length) {
    const named = others.slice(0, FIRST_OTHERS).map((c) => `${c.name} (${c.podCount ?? c.pods?.length ?? 0} pod(s))`);
    const more = others.length > FIRST_OTHERS ? ` and ${others.length - FIRST_OTHERS} more` : '';
    out.push(`same plan: ${named.join(', ')}${more}`);
  }
  const unschedulable = Array.isArray(detail.unschedulable)
    ? (detail.unschedulable as { pod: string; reason: string }[])
    : [];
  for (const u of unschedulable) out.push(`left pending: ${u.pod}: ${u.reason}`);
  if (typeof detail.unavailableOfferings === 'number' && detail.unavailableOfferings > 0) {
    out.push(`offerings skipped as recently unavailable (ICE): ${detail.unavailableOfferings}`);
  }
  const skipped = Array.isArray(detail.skippedNodePools)
    ? (detail.skippedNodePools as { nodePool?: string; reason?: string }[])
    : [];
  for (const s of skipped) out.push(`NodePool ${s.nodePool ?? '?'} skipped: ${s.reason ?? JSON.stringify(s)}`);
  return out;
}
