// What the pods of one class share: pods whose specs differ at most in their requests and labels have the same
// views, node requirements, tolerations and host ports, worked out once per class (podshape.ts PodShapes), and the
// same reasons, if any, never to be planned.
import type { NodeSelectorTerm, Pod, Toleration } from '../api/kube';
import { type HostPort, podHostPorts } from './hostports';
import { restrictedLabelReason } from './labels';
import { NodeFilter } from './nodefilter';
import type { PodBase } from './podshape';
import { initialView, matchableTerms, matchesNoNode, type PodView } from './preferences';
import { Requirement } from './requirement';
import { Requirements } from './requirements';
import type { VolumeTopology } from './volumes';

const TOLERATE_PREFER_NO_SCHEDULE: Toleration = { operator: 'Exists', effect: 'PreferNoSchedule' };

/**
 * What the pods of one class share: pods whose spec and volume topology are equal once the containers' resources and
 * the overhead are left out, so they differ at most in their requests (and labels). Views, node requirements,
 * tolerations and host ports read none of those, so they are worked out once per class (docs/performance.md,
 * "Distinct requests: per-pod setup").
 */
export interface SpecClass {
  hostPorts: HostPort[];
  volumeRequirements: Requirements;
  /** Why no pod of the class can be planned: a volume it needs is missing (said before any request error). */
  missing: string | undefined;
  /** Why no pod of the class can be planned: restricted keys or unmatchable affinity (said after request errors). */
  invalid: string | undefined;
  /** The relaxation views, shared by the bases (a view depends on the spec only). */
  views: PodView[];
  /** Per relaxation level: the view's node requirements and tolerations (read-only once built). */
  levels: LevelFacts[];
  /** The spread constraints' node filter (spreadNodeFilter), once asked for. */
  spreadFilter?: NodeFilter | undefined;
  /** The bases by the text of their requests (`requestsText`): the first base of each text, whatever its identity. */
  bases: Map<string, PodBase>;
  /** Bases whose requests text was first seen under another identity, by identity and that text. */
  moreBases: Map<string, PodBase> | undefined;
  /** The template of the class's first identity: its first valid base; later bases with other requests derive. */
  template: PodBase | undefined;
  /** The templates of the class's other identities. */
  moreTemplates: Map<number, PodBase> | undefined;
}

export interface LevelFacts {
  requirements: Requirements;
  strictRequirements: Requirements;
  tolerations: Toleration[];
}

export function newSpecClass(pod: Pod, vol: VolumeTopology, ignorePreferences: boolean): SpecClass {
  return {
    hostPorts: podHostPorts(pod),
    volumeRequirements: vol.requirements,
    missing: vol.missing,
    invalid: restrictedKeys(pod) ?? unmatchableAffinity(pod),
    views: [initialView(pod, ignorePreferences)],
    levels: [],
    bases: new Map(),
    moreBases: undefined,
    template: undefined,
    moreTemplates: undefined,
  };
}

/** A level's node requirements and tolerations: the pod's nodeSelector, the view's first required and preferred
 * terms, and its volumes' zones. */
export function levelFactsOf(pod: Pod, volumeRequirements: Requirements, view: PodView): LevelFacts {
  const requirements = Requirements.fromLabels(pod.spec.nodeSelector);
  const term = view.requiredTerms[0];
  if (term) requirements.addAll(termRequirements(term));
  requirements.addAll(volumeRequirements);
  const preferred = view.preferredNode[0];
  const strictRequirements = preferred ? requirements.clone() : requirements;
  if (preferred) requirements.addAll(termRequirements(preferred.preference));
  const tolerations = [...(pod.spec.tolerations ?? [])];
  if (view.toleratePreferNoSchedule) tolerations.push(TOLERATE_PREFER_NO_SCHEDULE);
  return { requirements, strictRequirements, tolerations };
}

/** The class's template for an identity: its first valid base of that identity. */
export function templateOf(cls: SpecClass, identity: number): PodBase | undefined {
  return cls.template?.identity === identity ? cls.template : cls.moreTemplates?.get(identity);
}

export function setTemplate(cls: SpecClass, identity: number, base: PodBase): void {
  if (!cls.template) {
    cls.template = base;
    return;
  }
  cls.moreTemplates ??= new Map();
  cls.moreTemplates.set(identity, base);
}

function termRequirements(term: NodeSelectorTerm): Requirements {
  const out = new Requirements();
  for (const e of term.matchExpressions ?? []) out.add(Requirement.of(e.key, e.operator, e.values ?? []));
  return out;
}

/**
 * The pod's nodeSelector and every required node-affinity term, whatever the relaxation level: kube-scheduler's spread
 * filter does not relax, and one filter per pod keeps one group across its levels.
 */
export function spreadNodeFilter(pod: Pod): NodeFilter | undefined {
  const selector = Requirements.fromLabels(pod.spec.nodeSelector);
  const terms = matchableTerms(pod);
  if (!terms.length) return NodeFilter.of([selector]);
  return NodeFilter.of(terms.map((t) => selector.clone().addAll(termRequirements(t))));
}

/** Required node affinity whose every term is empty matches no node: kube-scheduler would never place the pod, so a
 * node launched for it would sit empty until consolidation removed it, and then be launched again. */
function unmatchableAffinity(pod: Pod): string | undefined {
  return matchesNoNode(pod)
    ? 'required node affinity has only empty nodeSelectorTerms, which match no node'
    : undefined;
}

function restrictedKeys(pod: Pod): string | undefined {
  const keys = new Set(Object.keys(pod.spec.nodeSelector ?? {}));
  const na = pod.spec.affinity?.nodeAffinity;
  for (const t of na?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
    for (const e of t.matchExpressions ?? []) keys.add(e.key);
  }
  for (const p of na?.preferredDuringSchedulingIgnoredDuringExecution ?? []) {
    for (const e of p.preference.matchExpressions ?? []) keys.add(e.key);
  }
  for (const k of keys) {
    const why = restrictedLabelReason(k);
    if (why) return why;
  }
  return undefined;
}
