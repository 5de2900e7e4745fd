// The LP lower bound `karpless simulate` reports beside a plan's cost (docs/performance.md): per NodePool, its pods
// on the types and offerings that pool allows. Capacity reservations count with the room they had before the plan
// launched into them, at their near-zero price: the bound must not rise above a plan that used them.
import type { EC2NodeClass, NodePool } from '../api/karpenter';
import type { Pod } from '../api/kube';
import type { ResourceList } from '../api/resources';
import { isStaticNodePool } from '../api/static-nodepool';
import type { InstanceType, Offering } from '../catalog/types';
import { typesAllowedBy } from './pool-types';

/** What the bound needs of a launched claim's plan. */
interface PlannedPods {
  plan: { nodePool: string; pods: Pod[]; daemonSetOverhead: ResourceList };
}

type LowerBound = (pods: Pod[], types: InstanceType[], overhead?: ResourceList) => Promise<number> | number;

/** Per NodePool, the reserved offerings its EC2NodeClass's reservations give each type name, room as of now. */
export type ReservedRoom = Map<string, Map<string, Offering[]>>;

/** Reads the reserved offerings before the plan: after it, the room it used is gone. */
export async function reservedRoom(
  cloud: { getInstanceTypes(nodeClass: EC2NodeClass): Promise<InstanceType[]> },
  nodePools: readonly NodePool[],
  nodeClasses: readonly EC2NodeClass[],
): Promise<ReservedRoom> {
  const out: ReservedRoom = new Map();
  for (const pool of nodePools) {
    const nodeClass = nodeClasses.find((c) => c.metadata.name === pool.spec.template.spec.nodeClassRef.name);
    if (!nodeClass?.spec.capacityReservationSelectorTerms?.length) continue;
    const byType = new Map<string, Offering[]>();
    for (const t of await cloud.getInstanceTypes(nodeClass)) {
      const reserved = t.offerings.filter((o) => o.reservation);
      if (reserved.length > 0) byType.set(t.name, reserved);
    }
    out.set(pool.metadata.name, byType);
  }
  return out;
}

/** The LP lower bound summed over NodePools: each pool's pods on the types and offerings that pool allows, less
 * the smallest DaemonSet overhead among its claims. It bounds the packing, not the pool assignment. A static
 * NodePool's claims are bounded by its cheapest allowed offering each, since its replicas exist whatever the pods. */
export async function poolLowerBounds(
  launched: readonly PlannedPods[],
  nodePools: readonly NodePool[],
  instanceTypes: ReadonlyMap<string, InstanceType[]>,
  engine: { lowerBound: LowerBound },
  reserved: ReservedRoom = new Map(),
): Promise<number> {
  let total = 0;
  for (const pool of nodePools) {
    const claims = launched.filter((c) => c.plan.nodePool === pool.metadata.name);
    if (claims.length === 0) continue;
    const own = withReserved(instanceTypes.get(pool.metadata.name) ?? [], reserved.get(pool.metadata.name));
    const types = typesAllowedBy(pool.spec.template.spec.requirements, own);
    if (isStaticNodePool(pool)) {
      const cheapest = Math.min(...types.flatMap((t) => t.offerings.map((o) => o.price)));
      if (Number.isFinite(cheapest)) total += claims.length * cheapest;
      continue;
    }
    total += await engine.lowerBound(
      claims.flatMap((c) => c.plan.pods),
      types,
      minOverhead(claims.map((c) => c.plan.daemonSetOverhead)),
    );
  }
  return total;
}

function withReserved(types: InstanceType[], reserved: Map<string, Offering[]> | undefined): InstanceType[] {
  if (!reserved?.size) return types;
  return types.map((t) => {
    const extra = reserved.get(t.name);
    return extra ? { ...t, offerings: [...t.offerings.filter((o) => !o.reservation), ...extra] } : t;
  });
}

function minOverhead(lists: ResourceList[]): ResourceList {
  const [first, ...rest] = lists;
  const out: ResourceList = { ...first };
  for (const k of Object.keys(out)) for (const l of rest) out[k] = Math.min(out[k] as number, l[k] ?? 0);
  return out;
}
