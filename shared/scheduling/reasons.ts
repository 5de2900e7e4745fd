// Why a pod found no place, in words a user can act on: which resource no instance type has enough of, what a
// NodePool's limits leave, which requirements no type satisfies, and what each existing node objects to.
import type { Pod } from '../api/kube';
import { LabelHostname } from '../api/labels';
import type { ExistingNode } from './existingnode';
import type { TypeOption } from './instancetypes';
import type { PodShape } from './podshape';
import type { Requirements } from './requirements';
import type { ResourceIndex } from './resources';
import type { NodeClaimTemplate } from './template';

/** The first resource no compatible type has enough of after DaemonSet overhead, or that no one type fits them all. */
export function resourceFailure(
  compatible: readonly TypeOption[],
  shape: PodShape,
  t: NodeClaimTemplate,
  index: ResourceIndex,
): string {
  const names = index.names;
  const asked = names
    .map((n, i) => [n, shape.requests[i] as number] as const)
    .filter(([, v]) => v > 0)
    .map(([n, v]) => `${n}=${fmt(n, v)}`)
    .join(', ');
  for (let i = 0; i < names.length; i++) {
    const need = shape.requests[i] as number;
    if (need <= 0) continue;
    let most = 0;
    for (const o of compatible) most = Math.max(most, o.alloc[i] as number);
    if (most < need) {
      const name = names[i] as string;
      const overhead =
        (t.daemonVector[i] ?? 0) > 0 ? ` after DaemonSet overhead ${fmt(name, t.daemonVector[i] as number)}` : '';
      return `no instance type has enough ${name}: pod requests ${fmt(name, need)}, the largest compatible type offers ${fmt(name, most)}${overhead}`;
    }
  }
  return `no single instance type fits the pod's requests together (${asked})`;
}

/** What the NodePool's limits leave, per limited resource. */
export function limitText(t: NodeClaimTemplate, index: ResourceIndex): string {
  const r = t.remaining;
  if (!r || !t.limitList) return 'no limits';
  return Object.entries(t.limitList)
    .map(([k, v]) => `${k}: ${fmt(k, Math.max(0, r[index.id(k)] as number))} of ${fmt(k, v)} left`)
    .join(', ');
}

/** Requirements as `key operator values`, without the hostname (every claim has its own). */
export function describeReqs(reqs: Requirements): string {
  return [...reqs.values()]
    .filter((r) => r.key !== LabelHostname)
    .map((r) => `${r.key} ${r}`)
    .join(', ');
}

/** Why each of the first five existing nodes cannot take the pod. */
export function nodeReasons(nodes: readonly ExistingNode[], shape: PodShape, pod?: Pod): string {
  return nodes
    .slice(0, 5)
    .map((n) => `node "${n.name}": ${n.failure(shape, pod) ?? 'topology or host ports'}`)
    .join('; ');
}

function fmt(name: string, v: number): string {
  if (name === 'cpu') return v % 1000 === 0 ? String(v / 1000) : `${Math.round(v)}m`;
  if (name === 'memory' || name === 'ephemeral-storage') return `${Math.round(v / 2 ** 20)}Mi`;
  return String(v);
}

/** Why a solve out of time placed nothing: the first of the `tried` pods that could not land, and its reason. */
export function nothingPlaced(first: Pod, reason: string, tried: number): string {
  const { namespace, name } = first.metadata;
  return `out of time before any pod was placed; ${tried} tried, the first (${namespace}/${name}): ${reason}`;
}
