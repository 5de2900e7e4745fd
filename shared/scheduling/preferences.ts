// Preferences are first treated as requirements; when a pod cannot be placed, they are dropped one at a time in
// Karpenter's order: the next ORed required node-affinity term, then preferred pod affinity, preferred pod
// anti-affinity, preferred node affinity (heaviest first, so lighter ones get their turn), ScheduleAnyway spreads,
// and finally tolerating PreferNoSchedule taints.
import type {
  NodeSelectorTerm,
  Pod,
  PreferredSchedulingTerm,
  TopologySpreadConstraint,
  WeightedPodAffinityTerm,
} from '../api/kube';

/** The relaxable parts of a pod's scheduling constraints at one relaxation level. */
export interface PodView {
  requiredTerms: readonly NodeSelectorTerm[];
  preferredNode: readonly PreferredSchedulingTerm[];
  preferredAffinity: readonly WeightedPodAffinityTerm[];
  preferredAntiAffinity: readonly WeightedPodAffinityTerm[];
  scheduleAnyway: readonly TopologySpreadConstraint[];
  toleratePreferNoSchedule: boolean;
  /** What the last relaxation removed, for warnings. */
  relaxed?: string;
}

const byWeightDesc = <T extends { weight: number }>(list: readonly T[] | undefined): T[] =>
  [...(list ?? [])].sort((a, b) => b.weight - a.weight);

/** Kubernetes: "a null or empty node selector term matches no objects", so kube-scheduler never places a pod by one. */
export const isEmptyTerm = (t: NodeSelectorTerm): boolean => !t.matchExpressions?.length && !t.matchFields?.length;

/** The pod's required node-affinity terms that can match a node; ORed, so the empty ones change nothing. */
export const matchableTerms = (pod: Pod): NodeSelectorTerm[] =>
  (pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []).filter(
    (t) => !isEmptyTerm(t),
  );

/** Required node affinity declared with only empty terms: no node matches it, and kube-scheduler places the pod
 * nowhere. */
export function matchesNoNode(pod: Pod): boolean {
  const declared = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  return !!declared?.length && declared.every(isEmptyTerm);
}

/** The pod's first view; with `ignorePreferences` (Karpenter's PreferencePolicy Ignore) it has no preferences at
 * all, so none narrows a claim or a domain and none is left to relax. */
export function initialView(pod: Pod, ignorePreferences = false): PodView {
  const a = pod.spec.affinity;
  if (ignorePreferences) {
    return {
      requiredTerms: matchableTerms(pod),
      preferredNode: [],
      preferredAffinity: [],
      preferredAntiAffinity: [],
      scheduleAnyway: [],
      toleratePreferNoSchedule: false,
    };
  }
  return {
    requiredTerms: matchableTerms(pod),
    preferredNode: byWeightDesc(a?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution),
    preferredAffinity: byWeightDesc(a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution),
    preferredAntiAffinity: byWeightDesc(a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution),
    scheduleAnyway: (pod.spec.topologySpreadConstraints ?? []).filter((c) => c.whenUnsatisfiable === 'ScheduleAnyway'),
    toleratePreferNoSchedule: false,
  };
}

/** The preference lists relax drops from, one head term at a time, in this order, and how a warning names one. */
const DROPPED_IN_ORDER: readonly [
  'preferredAffinity' | 'preferredAntiAffinity' | 'preferredNode' | 'scheduleAnyway',
  string,
][] = [
  ['preferredAffinity', 'a preferred pod affinity term'],
  ['preferredAntiAffinity', 'a preferred pod anti-affinity term'],
  ['preferredNode', 'a preferred node affinity term'],
  ['scheduleAnyway', 'a ScheduleAnyway topology spread constraint'],
];

/** The next, looser view, or undefined when nothing is left to relax. */
export function relax(v: PodView, anyPreferNoSchedule = true): PodView | undefined {
  if (v.requiredTerms.length > 1) {
    return {
      ...v,
      requiredTerms: v.requiredTerms.slice(1),
      relaxed: 'required node affinity term 1 (trying the next ORed term)',
    };
  }
  for (const [list, relaxed] of DROPPED_IN_ORDER) {
    if (v[list].length > 0) return { ...v, [list]: v[list].slice(1), relaxed };
  }
  if (!v.toleratePreferNoSchedule && anyPreferNoSchedule) {
    return { ...v, toleratePreferNoSchedule: true, relaxed: 'PreferNoSchedule taints (now tolerated)' };
  }
  return undefined;
}
