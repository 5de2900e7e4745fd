// References for judging small packings, written apart from the engine so they can catch it: random small batches
// (whole-cpu, mixed and memory-heavy pods; NodePools restricted by category, generation and arch), the exact optimum
// by dynamic programming over the pods still to place, and Karpenter's first-fit-decreasing.
import type { NodePool } from '../shared/api/karpenter';
import type { DaemonSet, Pod } from '../shared/api/kube';
import type { InstanceType } from '../shared/catalog/types';
import { createRng } from '../shared/sim/rng';
import { daemonSet, nodePool, pod } from './builders';

const MI = 2 ** 20;
const GI = 2 ** 30;

/** One pod shape of a batch: cpu in millicores, memory in bytes, and how many replicas. */
export interface BatchShape {
  cpu: number;
  memory: number;
  count: number;
}

export interface SmallBatch {
  /** What the batch is, for a failing test's message. */
  label: string;
  arch: 'amd64' | 'arm64';
  categories: string[];
  /** Instance generation must be greater than this. */
  generationAbove: number;
  shapes: BatchShape[];
  /** A DaemonSet's requests on every node, or undefined for none. */
  daemon?: { cpu: number; memory: number };
}

const FAMILIES = {
  whole: { cpu: [1000, 2000, 3000, 4000], memory: [256 * MI, GI, 2 * GI] },
  mixed: { cpu: [250, 500, 750, 1500], memory: [512 * MI, GI, 1536 * MI, 3 * GI, 6 * GI] },
  memory: { cpu: [250, 500, 1000], memory: [4 * GI, 6 * GI, 8 * GI, 12 * GI, 16 * GI] },
} as const;

/** A random batch of 2–60 pods in 1–3 shapes, from one seed. */
export function smallBatch(seed: number): SmallBatch {
  const rng = createRng(seed);
  const familyName = rng.pick(['whole', 'mixed', 'memory'] as const);
  const family = FAMILIES[familyName];
  const kinds = 1 + rng.int(3);
  const total = 2 + rng.int(59);
  const cuts = Array.from({ length: kinds - 1 }, () => 1 + rng.int(Math.max(1, total - 1))).sort((a, b) => a - b);
  const counts = [...cuts, total].map((c, i) => c - (i === 0 ? 0 : (cuts[i - 1] as number)));
  const shapes = counts
    .filter((c) => c > 0)
    .map((count) => ({ cpu: rng.pick(family.cpu), memory: rng.pick(family.memory), count }));
  const categories = rng.pick([['c'], ['m'], ['r'], ['c', 'm'], ['m', 'r'], ['c', 'm', 'r']]);
  const arch = rng.pick(['amd64', 'arm64'] as const);
  const generationAbove = rng.pick([4, 5, 6]);
  const daemon = rng.next() < 0.3 ? { cpu: 100, memory: 128 * MI } : undefined;
  const label = `${total} ${familyName} pods [${shapes.map((s) => `${s.count}×${s.cpu}m/${Math.round(s.memory / MI)}Mi`).join(', ')}] on ${categories.join('')} gen>${generationAbove} ${arch}${daemon ? ' +ds' : ''}`;
  return { label, arch, categories, generationAbove, shapes, ...(daemon ? { daemon } : {}) };
}

/** The batch as solver input: an on-demand NodePool with the batch's restrictions, its pods and DaemonSet. */
export function batchObjects(batch: SmallBatch): { pool: NodePool; pods: Pod[]; daemonSets: DaemonSet[] } {
  const pool = nodePool({
    name: 'small',
    requirements: [
      { key: 'kubernetes.io/arch', operator: 'In', values: [batch.arch] },
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
      { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: batch.categories },
      { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt', values: [String(batch.generationAbove)] },
    ],
  });
  const pods = batch.shapes.flatMap((s, k) =>
    Array.from({ length: s.count }, (_, i) =>
      pod({ name: `s${k}-${i}`, cpu: `${s.cpu}m`, memory: `${Math.round(s.memory / MI)}Mi` }),
    ),
  );
  const daemonSets = batch.daemon
    ? [daemonSet('agent', { cpu: `${batch.daemon.cpu}m`, memory: `${Math.round(batch.daemon.memory / MI)}Mi` })]
    : [];
  return { pool, pods, daemonSets };
}

/** A type as the references see it: room for cpu (m), memory (bytes) and pod slots after the DaemonSet, and price. */
export interface RefType {
  name: string;
  room: [number, number, number];
  price: number;
}

/** The catalog types the batch's NodePool allows, read from their labels and on-demand offerings. */
export function referenceTypes(types: readonly InstanceType[], batch: SmallBatch): RefType[] {
  const out: RefType[] = [];
  const ds = batch.daemon;
  for (const t of types) {
    const l = t.labels;
    if (l['kubernetes.io/arch'] !== batch.arch) continue;
    if (!batch.categories.includes(l['karpenter.k8s.aws/instance-category'] ?? '')) continue;
    if (!(Number(l['karpenter.k8s.aws/instance-generation']) > batch.generationAbove)) continue;
    const prices = t.offerings.filter((o) => o.available && o.capacityType === 'on-demand').map((o) => o.price);
    if (prices.length === 0) continue;
    const room: [number, number, number] = [
      (t.allocatable.cpu ?? 0) - (ds?.cpu ?? 0),
      (t.allocatable.memory ?? 0) - (ds?.memory ?? 0),
      (t.allocatable.pods ?? 0) - (ds ? 1 : 0),
    ];
    if (room.some((v) => v < 0)) continue;
    out.push({ name: t.name, room, price: Math.min(...prices) });
  }
  return out;
}

function request(s: BatchShape): [number, number, number] {
  return [s.cpu, s.memory, 1];
}

/**
 * The cheapest packing, exactly: the first shape with pods left goes on some type's node together with a maximal
 * set of the pods left (fewer pods never cost more, so maximal sets suffice), and the rest is solved the same way.
 */
export function optimumCost(shapes: readonly BatchShape[], types: readonly RefType[]): number {
  const reqs = shapes.map(request);
  // A type no cheaper and no roomier than another (in every dimension) is never needed.
  const useful = types.filter(
    (b, j) =>
      !types.some(
        (a, i) =>
          i !== j &&
          a.price <= b.price &&
          a.room.every((v, d) => v >= (b.room[d] as number)) &&
          (a.price < b.price || a.room.some((v, d) => v > (b.room[d] as number)) || i < j),
      ),
  );
  const memo = new Map<string, number>();
  const best = (left: number[]): number => {
    const first = left.findIndex((n) => n > 0);
    if (first < 0) return 0;
    const key = left.join(',');
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    let cost = Number.POSITIVE_INFINITY;
    for (const t of useful) {
      for (const take of maximalSets(left, reqs, t.room, first)) {
        cost = Math.min(cost, t.price + best(left.map((n, k) => n - (take[k] as number))));
      }
    }
    memo.set(key, cost);
    return cost;
  };
  return best(shapes.map((s) => s.count));
}

/** Sets of the pods left that fit a node, hold at least one of `first`, and leave no pod left that would still fit. */
function maximalSets(left: number[], reqs: [number, number, number][], room: number[], first: number): number[][] {
  const out: number[][] = [];
  const take = left.map(() => 0);
  const used = [0, 0, 0];
  const fits = (k: number) => (reqs[k] as number[]).every((r, i) => (used[i] as number) + r <= (room[i] as number));
  // What the kinds after k could still take at most: if kind k fits even then, leaving one out is not maximal.
  const after = left.map((_, k) =>
    [0, 1, 2].map((i) => left.reduce((s, n, j) => (j > k ? s + n * ((reqs[j] as number[])[i] as number) : s), 0)),
  );
  const stillFits = (k: number) =>
    (reqs[k] as number[]).every(
      (r, i) => (used[i] as number) + ((after[k] as number[])[i] as number) + r <= (room[i] as number),
    );
  const walk = (k: number) => {
    if (k === left.length) {
      if ((take[first] as number) > 0 && left.every((n, j) => (take[j] as number) >= n || !fits(j)))
        out.push([...take]);
      return;
    }
    let n = 0;
    while (n < (left[k] as number) && fits(k)) {
      n++;
      (reqs[k] as number[]).forEach((r, i) => {
        used[i] = (used[i] as number) + r;
      });
    }
    for (; n >= 0; n--) {
      take[k] = n;
      if (n === left[k] || !stillFits(k)) walk(k + 1);
      if (n > 0)
        (reqs[k] as number[]).forEach((r, i) => {
          used[i] = (used[i] as number) - r;
        });
    }
    take[k] = 0;
  };
  walk(0);
  return out;
}

/**
 * Karpenter's packing: pods by cpu then memory, largest first; each joins the first claim some remaining type still
 * holds it on, else opens a claim with every type; each claim launches the cheapest type that holds its pods.
 */
export function firstFitDecreasingCost(shapes: readonly BatchShape[], types: readonly RefType[]): number {
  const pods = shapes
    .flatMap((s) => Array.from({ length: s.count }, () => request(s)))
    .sort((a, b) => b[0] - a[0] || b[1] - a[1]);
  const claims: { used: number[]; types: RefType[] }[] = [];
  const holds = (t: RefType, used: number[]) => used.every((u, i) => u <= (t.room[i] as number));
  for (const p of pods) {
    let placed = false;
    for (const c of claims) {
      const used = c.used.map((u, i) => u + (p[i] as number));
      const still = c.types.filter((t) => holds(t, used));
      if (still.length === 0) continue;
      c.used = used;
      c.types = still;
      placed = true;
      break;
    }
    if (!placed) {
      const used = [...p];
      const fit = types.filter((t) => holds(t, used));
      if (fit.length === 0) return Number.POSITIVE_INFINITY;
      claims.push({ used, types: fit });
    }
  }
  return claims.reduce((sum, c) => sum + Math.min(...c.types.map((t) => t.price)), 0);
}
