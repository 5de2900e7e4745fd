// Relocating many nodes' pods with one solve. Each node's pods first go onto the nodes that stay where they fit;
// what is left is bundled per node (one synthetic pod per node and scheduling-constraint set, carrying the sum of
// the requests), and all bundles are solved together. The solver then packs bundles of several nodes onto one new
// node where that is cheapest, which is a merge; nodes whose bundles share a new node form one component, and each
// component becomes one command (or is rejected as a whole).
import type { Pod } from '../api/kube';
import { formatResourceList } from '../api/resources';
import type { PlannedNodeClaim } from '../scheduling';
import type { NodeFacts } from './candidate';
import type { FitResult } from './capacity';
import { podRequests } from './pods';
import { sumRequests } from './relocate';
import type { Sweep } from './sweep';

export interface Component {
  members: NodeFacts[];
  fit: FitResult;
  replacements: PlannedNodeClaim[];
  /** Set when some of the members' pods would not schedule: the component must not go (gracefully). */
  failure?: string;
  /** The sweep's deadline stopped the solve before it placed some of the members' pods: they were not judged, and
   * the component neither goes nor is rejected this sweep. */
  deferred?: boolean;
}

const constraintKey = (pod: Pod): string =>
  JSON.stringify([pod.spec.nodeSelector, pod.spec.affinity, pod.spec.tolerations, pod.spec.topologySpreadConstraints]);

function bundle(name: string, pods: Pod[]): Pod {
  const first = pods[0] as Pod;
  const { pods: _slots, ...requests } = sumRequests(pods, podRequests);
  return {
    metadata: { name, namespace: first.metadata.namespace, labels: {} },
    spec: {
      ...first.spec,
      nodeName: undefined,
      initContainers: [],
      overhead: {},
      containers: [{ name: 'bundle', resources: { requests: formatResourceList(requests) } }],
    } as Pod['spec'],
  };
}

/** Relocates the members' pods; members must have no pods that depend on other pods (see relocate for those). */
export function batchRelocate(sw: Sweep, members: NodeFacts[], salt: string): Component[] {
  const exclude = new Set(members.map((m) => m.idx));
  const { fits, bundles, ownerOf } = bundleLeftovers(sw, members, exclude);
  // Union-find over members: bundles on the same new node tie their members together.
  const sets = new MemberSets(members);
  const solved: BundleOutcome = { claimsOf: new Map(), failures: new Map(), deferred: new Set() };
  if (bundles.length) solveBundles(sw, bundles, ownerOf, salt, sets, solved);
  return componentsOf(members, sets, fits, solved);
}

/** A bundle's member and the pods it stands for, by the bundle's name. */
type Owners = Map<string, { member: NodeFacts; pods: Pod[] }>;

/** What the solve of the bundles said of each member (the member that owned a claim's first bundle, for claims). */
interface BundleOutcome {
  claimsOf: Map<NodeFacts, PlannedNodeClaim[]>;
  failures: Map<NodeFacts, string>;
  deferred: Set<NodeFacts>;
}

/** Each member's pods fitted onto the nodes that stay, and what is left bundled per member and constraint set. */
function bundleLeftovers(
  sw: Sweep,
  members: NodeFacts[],
  exclude: Set<number>,
): { fits: Map<NodeFacts, FitResult>; bundles: Pod[]; ownerOf: Owners } {
  const fits = new Map<NodeFacts, FitResult>();
  const bundles: Pod[] = [];
  const ownerOf: Owners = new Map();
  for (const m of members) {
    const fit = sw.model.fit(m.pods, exclude);
    fits.set(m, fit);
    const groups = new Map<string, Pod[]>();
    for (const p of fit.leftovers) {
      const key = constraintKey(p);
      groups.set(key, [...(groups.get(key) ?? []), p]);
    }
    let k = 0;
    for (const pods of groups.values()) {
      const name = `${m.name}--bundle-${k++}`;
      bundles.push(bundle(name, pods));
      ownerOf.set(name, { member: m, pods });
    }
  }
  return { fits, bundles, ownerOf };
}

/** Solves the bundles together: members whose bundles share a new node join one set, and each claim gets the pods
 * its bundles stand for. */
function solveBundles(
  sw: Sweep,
  bundles: Pod[],
  ownerOf: Owners,
  salt: string,
  sets: MemberSets,
  out: BundleOutcome,
): void {
  const r = sw.solveNew(bundles, salt);
  for (const d of r.deferred ?? []) {
    const owner = ownerOf.get(d.metadata.name);
    if (owner) out.deferred.add(owner.member);
  }
  for (const u of r.unschedulable) {
    const owner = ownerOf.get(u.pod.metadata.name);
    if (owner) out.failures.set(owner.member, `pods would not schedule elsewhere: ${u.reason}`);
  }
  for (const claim of r.nodeClaims) {
    const owners = claim.pods.flatMap((b) => {
      const o = ownerOf.get(b.metadata.name);
      return o ? [o] : [];
    });
    const first = owners[0];
    if (!first) continue;
    for (const o of owners.slice(1)) sets.union(o.member, first.member);
    const pods = owners.flatMap((o) => o.pods);
    const slots = pods.length + (sw.input.daemonSets?.length ?? 0);
    const options = claim.instanceTypeOptions.filter((t) => (t.allocatable.pods ?? 0) >= slots);
    const real: PlannedNodeClaim = { ...claim, pods, instanceTypeOptions: options };
    if (!options.length)
      out.failures.set(first.member, `no instance type offers ${slots} pod slots for the replacement`);
    const root = first.member;
    out.claimsOf.set(root, [...(out.claimsOf.get(root) ?? []), real]);
  }
}

/** One component per set of members, with their fits, the first failure, and the claims filed under its members. */
function componentsOf(
  members: NodeFacts[],
  sets: MemberSets,
  fits: Map<NodeFacts, FitResult>,
  { claimsOf, failures, deferred }: BundleOutcome,
): Component[] {
  const components = new Map<NodeFacts, Component>();
  for (const m of members) {
    const root = sets.find(m);
    let c = components.get(root);
    if (!c) {
      c = { members: [], fit: { placements: [], leftovers: [] }, replacements: [] };
      components.set(root, c);
    }
    c.members.push(m);
    const fit = fits.get(m) as FitResult;
    c.fit.placements.push(...fit.placements);
    c.fit.leftovers.push(...fit.leftovers);
    const failure = failures.get(m);
    if (failure && !c.failure) c.failure = failure;
    if (deferred.has(m)) c.deferred = true;
  }
  // Claims were filed under the member that owned their first bundle; move them to that member's component root.
  for (const [owner, claims] of claimsOf) {
    const c = components.get(sets.find(owner));
    if (c) c.replacements.push(...claims);
  }
  return [...components.values()];
}

/** Disjoint sets of members (union-find; a lookup points the member straight at its root). */
class MemberSets {
  private readonly parent: Map<NodeFacts, NodeFacts>;

  constructor(members: readonly NodeFacts[]) {
    this.parent = new Map(members.map((m) => [m, m]));
  }

  find(m: NodeFacts): NodeFacts {
    let r = m;
    while (this.parent.get(r) !== r) r = this.parent.get(r) as NodeFacts;
    this.parent.set(m, r);
    return r;
  }

  /** Joins a's set to b's. */
  union(a: NodeFacts, b: NodeFacts): void {
    this.parent.set(this.find(a), this.find(b));
  }
}
