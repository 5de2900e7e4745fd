// Karpenter's NodeOverlay (karpenter.sh/v1alpha1): a price or price change and extended resources applied to the
// instance types its requirements select, before anything reads them (docs/api.md, "NodeOverlay").
import type { KarpenterObjectMeta, NodeSelectorRequirementWithMinValues } from './karpenter';

export interface NodeOverlaySpec {
  /** Empty or absent: every instance type. Matched against the type's labels, its offerings' zone and capacity
   * type, and the NodePool's name and template labels. */
  requirements?: NodeSelectorRequirementWithMinValues[];
  /** Absent counts as 0; higher wins, then the name later in the alphabet. */
  weight?: number;
  /** An absolute price ("5.00"); exclusive with priceAdjustment. */
  price?: string;
  /** "+10%", "-15%", "+0.5" or "-0.25"; exclusive with price. */
  priceAdjustment?: string;
  /** Extended resources added to the matching types; cpu, memory, ephemeral-storage and pods are refused. */
  capacity?: Record<string, string | number>;
}

export interface NodeOverlay {
  apiVersion: 'karpenter.sh/v1alpha1';
  kind: 'NodeOverlay';
  metadata: KarpenterObjectMeta;
  spec: NodeOverlaySpec;
}

/** Karpenter's CRD patterns, kept verbatim in meaning: a price is an unsigned decimal; an adjustment is a signed
 * decimal, a positive percentage, or a negative percentage down to -100%. */
export const OVERLAY_PRICE = /^\d+(\.\d+)?$/;
export const OVERLAY_PRICE_ADJUSTMENT = /^(([+-]{1}(\d*\.?\d+))|(\+{1}\d*\.?\d+%)|(^(-\d{1,2}(\.\d+)?%)$)|(-100%))$/;
/** Standard resources an overlay may not touch. */
export const OVERLAY_RESTRICTED_RESOURCES = ['cpu', 'memory', 'ephemeral-storage', 'pods'] as const;

/** Karpenter's order: higher weight first; equal weights, the name later in the alphabet first. */
export function byOverlayPrecedence(a: NodeOverlay, b: NodeOverlay): number {
  const wa = a.spec.weight ?? 0;
  const wb = b.spec.weight ?? 0;
  if (wa !== wb) return wb - wa;
  return a.metadata.name < b.metadata.name ? 1 : a.metadata.name > b.metadata.name ? -1 : 0;
}

/** The price after an overlay's `price` or `priceAdjustment`; never below zero (Karpenter clamps at 0). */
export function overlaidPrice(base: number, change: string): number {
  if (!change.startsWith('+') && !change.startsWith('-')) return Number(change);
  const adjusted = change.endsWith('%') ? base * (1 + Number(change.slice(0, -1)) / 100) : base + Number(change);
  return adjusted >= 0 ? adjusted : 0;
}
