// The waiting queue of one solve: pending pods in the order they get their turn, grouped into buckets of
// interchangeable pods so that target scoring and fills (cost.ts, fill.ts) work per bucket. A pod leaves the waiting
// pool when its turn comes or when a fill places it ahead of its turn.
//
// Buckets are further grouped into cells (docs/performance.md, "Planning cost with distinct requests"): buckets that
// differ only in their
// requests, with requests in the same geometric band per resource. Cells keep running sums as pods leave, so the
// fill's proportional slice reads the pool from a few hundred sums, and the target search can score a few hundred
// cells instead of tens of thousands of buckets when every pod's request differs. The fill's search for the
// best-fitting bucket uses a tree of each class's buckets by their requests instead (buckettree.ts).
import type { Pod } from '../api/kube';
import { BucketTree } from './buckettree';
import type { WaitingGroup } from './cost';
import { type PodBase, type PodShape, withRequests } from './podshape';
import { VectorMap } from './vectormap';

export interface QueuedPod {
  pod: Pod;
  base: PodBase;
  order: number;
  /** Already placed ahead of its turn, by a NodeClaim's fill (see fill.ts). */
  done: boolean;
  /** The pod of its group queued before it: a group's pods are a stack through this link (`Waiting.top`). */
  below: QueuedPod | undefined;
}

/**
 * The pods in turn order: largest first (cpu, then memory, descending), in input order among equals. Pods of a base
 * have one request, so only the bases are sorted and the pods are laid out by counting, in one pass: a comparison
 * sort of every pod ran unoptimized for a tenth of a cold solve's setup (docs/performance.md, "The cold 5k
 * rows"). Bases of equal requests end up next to each other in the sort and form one run, so no map of the
 * distinct requests is kept (with every request distinct it had an entry per pod: docs/performance.md, "Distinct
 * requests: per-pod setup").
 */
export function inTurnOrder(queue: readonly QueuedPod[]): QueuedPod[] {
  // Each base's number in order of first sight (ids are dense, from 0: an array, not a map by base).
  let ids = 0;
  for (let i = 0; i < queue.length; i++) ids = Math.max(ids, (queue[i] as QueuedPod).base.baseId + 1);
  const seenAs = new Int32Array(ids).fill(-1);
  const firstOf = new Int32Array(queue.length);
  const cpu: number[] = [];
  const memory: number[] = [];
  for (let i = 0; i < queue.length; i++) {
    const base = (queue[i] as QueuedPod).base;
    let k = seenAs[base.baseId] as number;
    if (k < 0) {
      k = cpu.length;
      seenAs[base.baseId] = k;
      cpu.push(base.requests[0] ?? 0);
      memory.push(base.requests[1] ?? 0);
    }
    firstOf[i] = k;
  }
  const bases = cpu.length;
  const order = new Int32Array(bases);
  for (let k = 0; k < bases; k++) order[k] = k;
  order.sort(
    (a, b) => (cpu[b] as number) - (cpu[a] as number) || (memory[b] as number) - (memory[a] as number) || a - b,
  );
  // Each base's run: bases of equal requests (as numbers, 0 equal to -0) share one.
  const runOf = new Int32Array(bases);
  let runs = 0;
  for (let i = 0; i < bases; i++) {
    const k = order[i] as number;
    const prev = i > 0 ? (order[i - 1] as number) : -1;
    if (prev >= 0 && (cpu[k] !== cpu[prev] || memory[k] !== memory[prev])) runs++;
    runOf[k] = runs;
  }
  // Where each run starts: its pods, counted, then summed in run order.
  const at = new Int32Array(bases > 0 ? runs + 2 : 1);
  for (let i = 0; i < queue.length; i++) {
    const r = (runOf[firstOf[i] as number] as number) + 1;
    at[r] = (at[r] as number) + 1;
  }
  for (let r = 1; r < at.length; r++) at[r] = (at[r] as number) + (at[r - 1] as number);
  // The input is in input order, so filling each run front to back keeps input order among equals.
  const out = new Array<QueuedPod>(queue.length);
  for (let i = 0; i < queue.length; i++) {
    const r = runOf[firstOf[i] as number] as number;
    out[at[r] as number] = queue[i] as QueuedPod;
    at[r] = (at[r] as number) + 1;
  }
  return out;
}

/**
 * Waiting pods of one base, not yet processed, in queue order. Its pods, and a bucket's groups, are stacks linked
 * through `below` rather than arrays: with every request distinct, each pod has a group of its own and each group a
 * bucket, and two arrays per pod were a sixth of what the setup left for the young-generation collector to copy
 * (docs/performance.md, "Distinct requests: what survives the setup").
 */
export interface Waiting {
  base: PodBase;
  remaining: number;
  /** Its last-queued pod not yet seen processed; the earlier ones below it. */
  top: QueuedPod | undefined;
  bucket: Bucket;
  /** The group of its bucket queued before it. */
  below: Waiting | undefined;
}

/**
 * Waiting pods that are interchangeable for packing: same requests, node requirements, tolerations and host ports.
 * Scoring and fills work per bucket, so thousands of pod shapes that differ only in labels cost one entry.
 */
export interface Bucket extends WaitingGroup {
  /** No topology constraint of its own: may be placed ahead of its turn by a fill. */
  simple: boolean;
  /** Its last-queued group with pods not yet seen processed; the earlier ones below it. */
  top: Waiting | undefined;
  /** Creation order: the order of `buckets`, which breaks ties between equally good buckets. */
  ordinal: number;
  cell: Cell;
  /** Its class's tree (simple buckets, once built) and the tree's leaf holding it (buckettree.ts). */
  tree?: BucketTree<Bucket>;
  leaf: number;
  /** The number of the last fill that passed it over (fill.ts): it cannot join that claim. */
  skipped: number;
  /** Its class's kind, as a short name (`WaitingQueue.keyOf` builds its identity from it). */
  kind: string;
  /** Its identity once asked for (`WaitingQueue.keyOf`): built on demand, most buckets are never asked. */
  key: string | undefined;
}

/** Simple buckets of one class (same requirements, tolerations and host ports), indexed by their requests. */
export interface BucketClass {
  /** A member's shape: whether the class may share a node type depends on the class alone. */
  shape: PodShape;
  tree: BucketTree<Bucket>;
}

/**
 * Each band of a cell spans this ratio of request sizes (a 1000m and a 1600m request can share a cell). Past a few
 * hundred buckets a target search scores cells, so their number is its cost: with 20,000 distinct requests a band of
 * 1.3 gave 571 searches 440 cells each, and 1.6 gives 314 searches 189 each, with plans as cheap on average over 25
 * seeded plans (docs/performance.md, "Distinct requests: cells and fitting types").
 */
const BAND_RATIO = 1.6;
const LOG_BAND = Math.log(BAND_RATIO);

/**
 * Buckets of one class (same requirements, tolerations, host ports and topology kind) whose requests fall in the same
 * band per resource. As a waiting group it stands for its pods at their mean request and mean worth.
 */
export class Cell implements WaitingGroup {
  /** Its buckets in creation order; emptied ones are dropped now and then by `live`. */
  buckets: Bucket[] = [];
  remaining = 0;
  /** The most pods any of its buckets ever held (buckets only shrink once queued). */
  maxRemaining = 0;
  /** Per resource: the smallest request of any bucket ever in the cell (whether an existing node might take one). */
  readonly min: Float64Array;
  /** A representative of the class whose requests are the cell's mean, updated as pods leave. */
  readonly shape: PodShape;
  /** Sum of the requests of the pods still waiting in the cell. */
  readonly total: Float64Array;
  private worth = 0;
  /** Bases with pods in the cell, when its pods are limited per node: the opening pod's own base counts as taken. */
  readonly bases = new Set<number>();

  constructor(
    first: PodShape,
    /** Equal for cells of interchangeable classes and bands, stable for the solve. */
    readonly key: string,
    readonly simple: boolean,
  ) {
    const dims = first.requests.length;
    this.min = new Float64Array(dims).fill(Number.POSITIVE_INFINITY);
    this.total = new Float64Array(dims);
    this.shape = withRequests(first, new Float64Array(dims));
  }

  get value(): number {
    return this.remaining > 0 ? this.worth / this.remaining : 0;
  }

  join(b: Bucket): void {
    this.buckets.push(b);
    const r = b.shape.requests;
    for (let i = 0; i < r.length; i++) {
      this.min[i] = Math.min(this.min[i] as number, r[i] as number);
    }
  }

  /** Counts `n` more (or, negative, fewer) pods of the bucket in the cell. */
  count(b: Bucket, n: number): void {
    this.remaining += n;
    if (b.remaining > this.maxRemaining) this.maxRemaining = b.remaining;
    this.worth += n * b.value;
    const r = b.shape.requests;
    const mean = this.shape.requests;
    for (let i = 0; i < r.length; i++) {
      this.total[i] = (this.total[i] as number) + n * (r[i] as number);
      mean[i] = this.remaining > 0 ? (this.total[i] as number) / this.remaining : 0;
    }
  }

  /** Drops emptied buckets once they are half the list. */
  compact(emptied: number): void {
    if (emptied * 2 > this.buckets.length) this.buckets = this.buckets.filter((b) => b.remaining > 0);
  }

  /** Resets the worth once the buckets' values are known (they are priced after every pod is queued). */
  revalue(): void {
    this.worth = 0;
    for (const b of this.buckets) this.worth += b.remaining * b.value;
  }
}

export class WaitingQueue {
  /** Each base's waiting pods, by base id (ids are dense: with every request distinct, a base per pod). */
  private readonly waiting: (Waiting | undefined)[] = [];
  /** Buckets by kind number and requests; cells by kind number and bands (vectormap.ts: no text key per bucket). */
  private readonly byKey = new VectorMap<Bucket>();
  private readonly cellByKey = new VectorMap<Cell>();
  /** The bands of the shape being queued (`cellFor`); copied when a cell is made. */
  private bands = new Float64Array(0);
  /** Each class's kind (requirements, tolerations, host ports, topology kind) as a number; its short name is
   * `k<number>`. */
  private readonly kindOfClass = new Map<number, number>();
  private readonly kindNames = new Map<string, number>();
  private readonly kindName: string[] = [];
  private list: Bucket[] = [];
  private cellList: Cell[] = [];
  /** Simple buckets by class, in creation order; indexed into `classList` when a fill first asks. */
  private readonly simpleByKind = new Map<string, Bucket[]>();
  private classList: BucketClass[] | undefined;
  /** Emptied entries still in `list` / `cellList`: they are dropped in one pass once they are half of it. */
  private emptied = 0;
  private emptiedCells = 0;
  private count = 0;

  /**
   * Buckets in creation order, with those that emptied dropped from time to time (an entry may show remaining 0;
   * readers skip it). Replaced, never changed in place, when it is compacted.
   */
  get buckets(): readonly Bucket[] {
    return this.list;
  }

  /** The cells, on the same terms as `buckets`. */
  get cells(): readonly Cell[] {
    return this.cellList;
  }

  /** The classes of simple buckets, each with its tree. Built on first use; buckets are all queued by then. */
  get classes(): readonly BucketClass[] {
    if (!this.classList) {
      this.classList = [];
      for (const list of this.simpleByKind.values()) {
        const first = list[0] as Bucket;
        const tree = new BucketTree(list, first.shape.requests.length);
        for (const b of list) b.tree = tree;
        this.classList.push({ shape: first.shape, tree });
      }
    }
    return this.classList;
  }

  /** How many buckets still hold waiting pods. */
  get bucketCount(): number {
    return this.list.length - this.emptied;
  }

  /** How many pods are still waiting. */
  get size(): number {
    return this.count;
  }

  /** Adds a pod, in turn order, under its base's first shape. */
  enqueue(q: QueuedPod, shape: PodShape): void {
    let g = this.waiting[q.base.baseId];
    if (!g) {
      const bucket = this.bucketFor(shape);
      g = { base: q.base, remaining: 0, top: q, bucket, below: bucket.top };
      while (this.waiting.length < q.base.baseId) this.waiting.push(undefined);
      this.waiting[q.base.baseId] = g;
      bucket.top = g;
      // Read only for pods limited per node (cost.ts): a set of every distinct pod's base would cost a Set entry each.
      if (shape.perNodeLimit !== Number.POSITIVE_INFINITY) bucket.cell.bases.add(q.base.baseId);
    } else {
      q.below = g.top;
      g.top = q;
    }
    g.remaining++;
    g.bucket.remaining++;
    // A tree's counts are of the pods queued when it was built: a later pod rebuilds them.
    this.classList = undefined;
    g.bucket.cell.count(g.bucket, 1);
    this.count++;
  }

  /** Sets every cell's worth from its buckets' values (call after pricing the buckets). */
  revalue(): void {
    for (const c of this.cellList) c.revalue();
  }

  /** The bucket the base's pods wait in, if any do. */
  bucketOf(baseId: number): Bucket | undefined {
    return this.waiting[baseId]?.bucket;
  }

  /** The bucket's identity: equal for buckets of interchangeable pods, stable for the solve. */
  keyOf(bucket: Bucket): string {
    // Numbers as text, comma-separated (what joining them with template strings wrote), in one flat string.
    bucket.key ??= `${bucket.shape.requests.join(',')}|${bucket.kind}`;
    return bucket.key;
  }

  /** Marks a queued pod as taken out of the waiting pool (placed now, or about to be tried on its turn). */
  consume(q: QueuedPod): void {
    q.done = true;
    const g = this.waiting[q.base.baseId];
    if (!g || g.remaining <= 0) return;
    const b = g.bucket;
    g.remaining--;
    b.remaining--;
    b.cell.count(b, -1);
    this.count--;
    if (b.remaining === 0) b.tree?.emptied(b);
    if (b.remaining === 0 && ++this.emptied * 2 > this.list.length) {
      this.list = this.list.filter((x) => x.remaining > 0);
      this.emptied = 0;
    }
    if (b.cell.remaining === 0 && ++this.emptiedCells * 2 > this.cellList.length) {
      this.cellList = this.cellList.filter((x) => x.remaining > 0);
      this.emptiedCells = 0;
    }
  }

  /** A waiting pod of the bucket that has not been processed yet, with its group. */
  nextMember(b: Bucket): { q: QueuedPod; g: Waiting } | undefined {
    for (;;) {
      const g = b.top;
      if (!g) return undefined;
      let q = g.top;
      while (q?.done) q = q.below;
      g.top = q;
      if (q) return { q, g };
      b.top = g.below;
    }
  }

  private bucketFor(shape: PodShape): Bucket {
    // The kind reads nothing of the requests, so shapes of one class (podshape.ts) share it.
    let kind = this.kindOfClass.get(shape.classId);
    if (kind === undefined) {
      const limited = shape.perNodeLimit !== Number.POSITIVE_INFINITY;
      const text = [
        shape.requirements.toString(),
        JSON.stringify(shape.tolerations),
        JSON.stringify(shape.hostPorts),
        limited ? `n${shape.perNodeLimit}` : '',
        shape.groups.length > 0 ? 'c' : 's',
      ].join('|');
      // Buckets and cells are looked up by the kind's number, and their identities carry its short name, not its text
      // (docs/performance.md, "Distinct requests: per-pod setup").
      kind = this.kindNames.get(text);
      if (kind === undefined) {
        kind = this.kindNames.size;
        this.kindNames.set(text, kind);
      }
      this.kindOfClass.set(shape.classId, kind);
    }
    // The shape's requests are final (PodShapes.finalizeVectors) and never change: the map may keep them.
    let b = this.byKey.get(kind, shape.requests);
    if (!b) {
      let kindName = this.kindName[kind];
      if (kindName === undefined) {
        kindName = `k${kind}`;
        this.kindName[kind] = kindName;
      }
      const cell = this.cellFor(shape, kind, kindName);
      b = {
        shape,
        remaining: 0,
        // -0, not 0: a bucket's worth is a fraction, and a field first written as a whole number moves every bucket
        // to a new hidden class when the first fraction arrives (20,000 migrations, and a deopt of each function that
        // had seen the old class, with every request distinct). -0 is a float and adds like 0.
        value: -0,
        simple: shape.groups.length === 0,
        top: undefined,
        ordinal: this.byKey.size,
        cell,
        // Set when its class's tree is built; written here so that every bucket keeps one hidden class.
        tree: undefined,
        leaf: -1,
        skipped: 0,
        kind: kindName,
        key: undefined,
      };
      cell.join(b);
      this.byKey.add(kind, shape.requests, b);
      this.list.push(b);
      if (b.simple) {
        const members = this.simpleByKind.get(kindName);
        if (members) members.push(b);
        else this.simpleByKind.set(kindName, [b]);
      }
    }
    return b;
  }

  private cellFor(shape: PodShape, kind: number, kindName: string): Cell {
    const r = shape.requests;
    if (this.bands.length !== r.length) this.bands = new Float64Array(r.length);
    const bands = this.bands;
    for (let i = 0; i < r.length; i++) bands[i] = bandNumber(r[i] as number);
    let c = this.cellByKey.get(kind, bands);
    if (!c) {
      c = new Cell(shape, `${joined(r, band)}|${kindName}`, shape.groups.length === 0);
      this.cellByKey.add(kind, bands.slice(), c);
      this.cellList.push(c);
    }
    return c;
  }
}

/** A request's band: requests within one BAND_RATIO of each other share it. */
function band(r: number): number | string {
  return r > 0 ? Math.floor(Math.log(r) / LOG_BAND) : '-';
}

/** `band` as a number: no request has the band -Infinity (the log of the smallest positive number is finite), so it
 * stands for '-'. Two requests have equal bands exactly when `band` gives them the same text. */
function bandNumber(r: number): number {
  return r > 0 ? Math.floor(Math.log(r) / LOG_BAND) : Number.NEGATIVE_INFINITY;
}

/** The values mapped and joined with commas, as `Array.from(v, f).join(',')` writes them, without the copy. */
function joined(v: Float64Array, f: (r: number) => number | string): string {
  let s = '';
  for (let i = 0; i < v.length; i++) s += i === 0 ? `${f(v[i] as number)}` : `,${f(v[i] as number)}`;
  return s;
}
