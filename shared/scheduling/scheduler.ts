// The solver: pods largest first; each goes to an existing node, then to a NodeClaim already planned, then to a new
// NodeClaim from the first NodePool (by weight) that can take it. A pod that fits nowhere has its preferences
// relaxed one at a time; when nothing is left to relax it is reported with the reason each NodePool gave.
import type { Pod } from '../api/kube';
import type { ResourceList } from '../api/resources';
import { Deadline } from './deadline';
import { Domains } from './domains';
import { priceTemplates, shapeValue } from './duals';
import { EXACT_PACKING_MS, packExactly, type RepackContext } from './exact/repack';
import { ExistingNode, ignoredForTopology, safePodRequests } from './existingnode';
import { ClaimFiller } from './fill';
import { allowsSpot, InflightClaim, minValuesShortfall, reservationFor } from './nodeclaim';
import { PlannedClaims } from './plannedclaims';
import { type PodShape, PodShapes } from './podshape';
import { inTurnOrder, type QueuedPod, WaitingQueue } from './queue';
import { describeReqs, nodeReasons, nothingPlaced } from './reasons';
import { narrowed } from './requirements';
import { ResourceIndex } from './resources';
import { byKey, deferredInOrder, type InputPod, plannedClaims } from './results';
import { TargetChooser } from './target';
import { NodeClaimTemplate } from './template';
import { Topology } from './topology';
import type { TopologyGroup } from './topologygroup';
import type { SchedulingInput, SchedulingResult, UnschedulablePod } from './types';
import { podVolumes } from './volumedrivers';
import { VolumeIndex } from './volumes';
import { NO_VOLUMES, type PodVolumes, withinLimits } from './volumeusage';

const DEFAULT_MAX_TYPES = 60;
/** Setup loops read the clock once per this many pods (a few tens of microseconds of work). */
const SETUP_CHECK = 64;
/** Reading pods stops this long before the deadline, for what runs up to the first pod placed (docs/performance.md). */
const SETUP_RESERVE_MS = 100;

export class Scheduler {
  private readonly index = new ResourceIndex();
  private readonly warnings: string[] = [];
  private readonly templates: NodeClaimTemplate[];
  private readonly topology: Topology<PodShape>;
  private readonly shapes: PodShapes;
  /** Filled once resource vectors are final (prepare); Domains reads the same array. */
  private readonly nodes: ExistingNode[] = [];
  /** The existing nodes in the order a pod tries them: initialized first, then in flight. */
  private placementOrder: ExistingNode[] = [];
  private readonly claims: PlannedClaims;
  private readonly waiting = new WaitingQueue();
  private readonly filler: ClaimFiller;
  private readonly targets: TargetChooser;
  /** Smallest request per resource over every pending pod: a claim with less room than this is closed. */
  private minRequest: Float64Array = new Float64Array(0);
  private anyPreferNoSchedule = false;
  private relaxations = 0;
  private readonly maxTypes: number;
  private readonly deadline: Deadline;
  /** Pods the setup read but did not get to before the deadline. */
  private readonly setupDeferred: InputPod[] = [];
  /** The input's pods from here on were never read (out of time): a bound, so deferring 20k of them costs nothing. */
  private unreadFrom: number | undefined;
  /** The reading of pods ran into SETUP_RESERVE_MS: the rest of the setup takes its cheapest way (no LP). */
  private setupCut = false;
  private readonly volumeIndex: VolumeIndex;
  /** Each pod's attachable volumes by CSI driver, resolved once (volumedrivers.ts). */
  private readonly podVolumeCache = new WeakMap<Pod, PodVolumes>();
  private readonly volumesOf = (p: Pod): PodVolumes => {
    if (!p.spec.volumes) return NO_VOLUMES;
    let v = this.podVolumeCache.get(p);
    if (!v) {
      v = podVolumes(p, this.volumeIndex);
      this.podVolumeCache.set(p, v);
    }
    return v;
  };

  constructor(private readonly input: SchedulingInput) {
    const opts = input.options ?? {};
    this.maxTypes = opts.maxInstanceTypes ?? DEFAULT_MAX_TYPES;
    const now = opts.now ?? Date.now;
    this.deadline = new Deadline(now, opts.timeoutMs === undefined ? undefined : now() + opts.timeoutMs);
    const nsLabels = new Map<string, Record<string, string>>();
    for (const ns of input.namespaces ?? []) nsLabels.set(ns.metadata.name, ns.metadata.labels ?? {});
    this.templates = [...input.nodePools]
      .sort((a, b) => (b.spec.weight ?? 0) - (a.spec.weight ?? 0) || cmp(a.metadata.name, b.metadata.name))
      .map(
        (np) =>
          new NodeClaimTemplate(np, input.instanceTypes.get(np.metadata.name) ?? [], input.options?.minValuesPolicy),
      );
    this.topology = new Topology(nsLabels, new Domains(this.templates, this.nodes));
    this.volumeIndex = new VolumeIndex(input.pvcs, input.pvs, input.storageClasses);
    this.shapes = new PodShapes(
      this.index,
      this.topology,
      this.volumeIndex,
      this.warnings,
      input.options?.preferencePolicy === 'Ignore',
    );
    this.filler = new ClaimFiller(this.waiting, this.nodes, () => this.deadline.passed());
    const nameClaim = opts.nameNodeClaim ?? ((pool, n) => `${pool}-${n}`);
    this.claims = new PlannedClaims(this.index, this.topology, this.deadline, nameClaim);
    this.targets = new TargetChooser(this.waiting, this.deadline);
    for (const np of input.nodePools) {
      if (!input.instanceTypes.has(np.metadata.name))
        this.warnings.push(`nodepool "${np.metadata.name}" has no instance types`);
    }
  }

  solve(): SchedulingResult {
    const started = Date.now();
    const queue = this.prepare();
    const unschedulable: UnschedulablePod[] = [];
    const deferred: InputPod[] = [...this.setupDeferred];
    const first = this.placeInTurn(queue, unschedulable, deferred);
    const { retry, placed } = this.retryFailed(first.retry, first.placed);
    // Out of time before the retries ran: those pods may yet fit, so they wait for the next pass like the rest.
    const outOfTime = this.deadline.passed();
    if (outOfTime && !placed && retry[0])
      this.warnings.push(nothingPlaced(retry[0].q.pod, retry[0].reason, retry.length));
    for (const r of retry) {
      if (outOfTime) deferred.push(r.q);
      else unschedulable.push({ pod: r.q.pod, reason: r.reason });
    }
    const packing = outOfTime ? undefined : packExactly(this.claims.list, this.repackContext());
    const nodeClaims = plannedClaims(this.claims.list, this.index, this.maxTypes, unschedulable);
    const sortedUnschedulable = byKey(unschedulable, (u) => u.pod);
    const sortedDeferred = deferredInOrder(deferred, this.input.pods, this.unreadFrom);
    return {
      nodeClaims,
      existingNodes: this.nodes.map((n) => ({ name: n.name, pods: n.placed })),
      unschedulable: sortedUnschedulable,
      deferred: sortedDeferred,
      warnings: this.warnings,
      stats: {
        pods: this.input.pods.length,
        durationMs: Date.now() - started,
        relaxations: this.relaxations,
        timedOut: sortedDeferred.length > 0,
        ...(packing ? { packing } : {}),
      },
    };
  }

  /** Each queued pod in its turn; the pods that failed come back to be retried, the invalid ones are unschedulable. */
  private placeInTurn(
    queue: readonly QueuedPod[],
    unschedulable: UnschedulablePod[],
    deferred: InputPod[],
  ): { retry: Retry[]; placed: boolean } {
    const retry: Retry[] = [];
    // However small the budget, entries are tried until one is placed (or 64 failed): progress, or why not.
    let placed = false;
    let tries = 0;
    for (const q of queue) {
      if (q.done) continue;
      if ((placed || tries >= SETUP_CHECK) && this.deadline.passed()) {
        deferred.push(q);
        continue;
      }
      tries++;
      this.waiting.consume(q);
      const outcome = this.place(q, 0);
      placed ||= outcome.ok;
      if (outcome.ok) continue;
      if (q.base.invalid) unschedulable.push({ pod: q.pod, reason: outcome.reason });
      else retry.push({ q, level: outcome.level, reason: outcome.reason });
    }
    return { retry, placed };
  }

  /** Pods that failed may succeed once the pods they depend on (affinity) have landed. */
  private retryFailed(failed: Retry[], placedBefore: boolean): { retry: Retry[]; placed: boolean } {
    let retry = failed;
    let placed = placedBefore;
    for (let pass = 0; pass < 3 && retry.length > 0 && !this.deadline.passed(); pass++) {
      const next: Retry[] = [];
      for (const r of retry) {
        const outcome = this.place(r.q, r.level);
        if (outcome.ok) placed = true;
        else next.push({ ...r, reason: outcome.reason });
      }
      const progressed = next.length < retry.length;
      retry = next;
      if (!progressed) break;
    }
    return { retry, placed };
  }

  private repackContext(): RepackContext {
    return {
      index: this.index,
      maxTypes: this.maxTypes,
      budgetMs: Math.min(this.input.options?.exactPackingMs ?? EXACT_PACKING_MS, this.deadline.remainingMs()),
      stopAt: performance.now() + this.deadline.remainingMs(),
      movable: (shape) => this.topology.selectedBy(shape).length === 0,
      newName: (t) => this.claims.takeName(t),
      claim: (t, name, reqs, options, target) =>
        new InflightClaim(
          t,
          name,
          reqs,
          options,
          target,
          this.index.names.length,
          reservationFor(t.remaining, target),
          this.topology,
          this.minRequest,
          this.volumesOf,
        ),
    };
  }

  // ---- setup ---------------------------------------------------------------------------------------------------

  private prepare(): QueuedPod[] {
    const daemonSets = this.input.daemonSets ?? [];
    for (const t of this.templates) {
      t.computeDaemonOverhead(daemonSets);
      this.index.register(t.daemonOverhead);
      if (t.limitList) this.index.register(t.limitList);
      if (t.taints.some((x) => x.effect === 'PreferNoSchedule')) this.anyPreferNoSchedule = true;
    }
    for (const n of this.input.existingNodes ?? []) {
      if (n.taints.some((x) => x.effect === 'PreferNoSchedule')) this.anyPreferNoSchedule = true;
    }
    // Reading every pod is linear but not free (tens of thousands of distinct pods take seconds): the deadline is
    // checked as it goes, and the pods not yet read wait for the next solve (docs/performance.md).
    let queue: QueuedPod[] = [];
    const pods = this.input.pods;
    for (let order = 0; order < pods.length; order++) {
      if (order > 0 && order % SETUP_CHECK === 0 && this.deadline.remainingMs() <= SETUP_RESERVE_MS) {
        this.unreadFrom = order;
        this.setupCut = true;
        break;
      }
      const pod = pods[order] as Pod;
      queue.push({ pod, base: this.shapes.baseOf(pod), order, done: false, below: undefined });
    }
    // Out of time once every pod is read: only the first chunk goes on, so what remains of the setup is small.
    if (queue.length > SETUP_CHECK && this.deadline.remainingMs() <= SETUP_RESERVE_MS) {
      this.setupCut = true;
      for (const q of queue.splice(SETUP_CHECK)) this.setupDeferred.push(q);
    }
    // Existing pods' required anti-affinity keeps new pods away from them (the inverse rule).
    const existingAnti: { node: number; pod: Pod; groups: TopologyGroup[] }[] = [];
    (this.input.existingNodes ?? []).forEach((n, ni) => {
      for (const p of n.pods) {
        if (ignoredForTopology(p)) continue;
        const terms = p.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
        if (terms.length === 0) continue;
        const id = { namespace: p.metadata.namespace, labels: p.metadata.labels ?? {} };
        existingAnti.push({
          node: ni,
          pod: p,
          groups: terms.map((t) => this.topology.affinityGroup(id, t, 'antiAffinity', true)),
        });
      }
    });
    this.shapes.finalizeVectors();
    for (const t of this.templates) t.buildTypes(this.index);
    for (const n of this.input.existingNodes ?? [])
      this.nodes.push(new ExistingNode(n, this.index, safePodRequests, this.topology, this.volumesOf));
    this.countExisting(existingAnti);
    // Initialized nodes take pods before in-flight ones (as Karpenter orders them), so a pod lands where it can run now.
    this.placementOrder = [...this.nodes.filter((n) => !n.node.inflight), ...this.nodes.filter((n) => n.node.inflight)];
    this.consumeLimits();

    queue = inTurnOrder(queue);
    for (let i = 0; i < queue.length; i++) {
      if (i > 0 && i % SETUP_CHECK === 0 && this.deadline.passed()) {
        for (const q of queue.slice(i)) this.setupDeferred.push(q);
        queue.length = i;
        break;
      }
      const q = queue[i] as QueuedPod;
      const shape = q.base.first;
      if (!shape || q.base.invalid) continue;
      this.waiting.enqueue(q, shape);
    }
    this.computeAllDuals(queue);
    this.minRequest = new Float64Array(this.index.names.length).fill(Number.POSITIVE_INFINITY);
    for (const b of this.shapes.all) {
      if (b.invalid) continue;
      for (let i = 0; i < this.minRequest.length; i++) {
        this.minRequest[i] = Math.min(this.minRequest[i] as number, b.requests[i] ?? 0);
      }
    }
    for (let i = 0; i < this.minRequest.length; i++) if (!Number.isFinite(this.minRequest[i])) this.minRequest[i] = 0;
    return queue;
  }

  private countExisting(existingAnti: { node: number; pod: Pod; groups: TopologyGroup[] }[]): void {
    if (this.nodes.length === 0) return;
    const groups = this.allGroups();
    for (const node of this.nodes) node.countPods(groups);
    for (const e of existingAnti) (this.nodes[e.node] as ExistingNode).recordOwner(e.groups);
  }

  private allGroupsCache: TopologyGroup[] | undefined;
  private allGroups(): TopologyGroup[] {
    if (!this.allGroupsCache) {
      const set = new Set<TopologyGroup>();
      for (const b of this.shapes.all) {
        for (const g of b.first?.groups ?? []) set.add(g);
        for (const s of b.relaxed) for (const g of s.groups) set.add(g);
      }
      // Required anti-affinity groups of existing pods select pods too.
      for (const b of this.shapes.all) for (const g of this.topology.selectedBy(b)) set.add(g);
      this.allGroupsCache = [...set];
    }
    return this.allGroupsCache;
  }

  private consumeLimits(): void {
    for (const t of this.templates) {
      if (!t.remaining) continue;
      let usage: ResourceList | undefined = this.input.nodePoolUsage?.get(t.name);
      if (!usage) {
        usage = {};
        for (const n of this.input.existingNodes ?? []) {
          if (n.nodePool !== t.name) continue;
          for (const [k, v] of Object.entries(n.allocatable)) usage[k] = (usage[k] ?? 0) + v;
        }
      }
      t.consume(usage, this.index);
    }
  }

  private computeAllDuals(queue: QueuedPod[]): void {
    priceTemplates(this.templates, queue, this.index, this.deadline, this.setupCut, SETUP_CHECK);
    // Pricing each bucket reads its pool compatibility (first sight of each shape): out of time, buckets keep no
    // worth and a new claim's target is chosen by price alone (cost.ts chooseTarget).
    for (const b of this.waiting.buckets) {
      if (this.deadline.passed()) break;
      b.value = shapeValue(this.templates, b.shape);
    }
    this.waiting.revalue();
  }

  // ---- placement -------------------------------------------------------------------------------------------------

  private place(q: QueuedPod, fromLevel: number): { ok: true } | { ok: false; level: number; reason: string } {
    if (q.base.invalid) return { ok: false, level: 0, reason: `pod cannot be scheduled: ${q.base.invalid}` };
    let level = fromLevel;
    for (;;) {
      const shape = this.shapes.level(q.base, level, this.anyPreferNoSchedule);
      if (!shape) return { ok: false, level: 0, reason: 'pod cannot be scheduled' };
      if (level > fromLevel) this.relaxations++;
      const failure = this.placeShape(q.pod, shape);
      if (failure === undefined) return { ok: true };
      const next = this.shapes.level(q.base, level + 1, this.anyPreferNoSchedule);
      if (!next) return { ok: false, level, reason: failure };
      level++;
    }
  }

  /** Places the pod at this relaxation level, or returns why no node and no NodePool could take it. */
  private placeShape(pod: Pod, shape: PodShape): string | undefined {
    for (const n of this.placementOrder) {
      if (n.accepting && n.canAdd(shape, pod)) {
        n.add(pod, shape);
        return undefined;
      }
    }
    if (this.claims.tryAdd(pod, shape)) return undefined;
    if (this.input.options?.existingNodesOnly) {
      return this.nodes.length === 0
        ? 'no existing node to place the pod on (new capacity is disabled)'
        : `no existing node can take the pod (new capacity is disabled): ${nodeReasons(this.nodes, shape, pod)}`;
    }
    if (this.templates.length === 0) return 'no NodePool is defined';
    const reasons: string[] = [];
    for (const t of this.templates) {
      const why = this.openClaim(t, pod, shape);
      if (why === undefined) return undefined;
      reasons.push(`nodepool "${t.name}": ${why}`);
    }
    return `no NodePool could fit the pod: ${reasons.join('; ')}`;
  }

  /** Opens a NodeClaim for the pod from this template, or says why it cannot. */
  private openClaim(t: NodeClaimTemplate, pod: Pod, shape: PodShape): string | undefined {
    const admitted = t.admit(shape, this.index);
    if ('reason' in admitted) return admitted.reason;
    let { options, reqs } = admitted;
    const name = this.claims.nextName(t);
    const topo = this.topology.check(shape, reqs, name);
    if (!topo.ok) return topo.reason;
    if (topo.requirements.length > 0) {
      reqs = narrowed(reqs, topo.requirements) ?? reqs;
      options = t.compatibleOptions(options, reqs);
      if (options.length === 0) return `no instance type is offered in the domain ${describeReqs(reqs)}`;
    }
    // The pod's volumes must fit the type's attach limits (a new node's EBS limit, docs/simulate-dump.md).
    const vols = this.volumesOf(pod);
    if (vols.size > 0) {
      const counts = new Map([...vols].map(([d, ids]) => [d, new Set(ids).size]));
      options = options.filter((o) => withinLimits(counts, o.it.volumeLimits));
      if (options.length === 0)
        return `no instance type can attach ${[...counts].map(([d, n]) => `${n} ${d} volumes`).join(', ')}`;
    }
    if (t.enforceMinValues) {
      const short = minValuesShortfall(options, reqs);
      if (short) return short;
    }
    const preferSpot = allowsSpot(reqs) && options.some((o) => o.offerings.some((x) => x.capacityType === 'spot'));
    const choice = this.targets.choose(t, shape, reqs, preferSpot, t.candidates(options));
    if (!choice) return 'no instance type has an available offering';
    const claim = new InflightClaim(
      t,
      name,
      reqs,
      options,
      choice.option,
      this.index.names.length,
      reservationFor(t.remaining, choice.option),
      this.topology,
      this.minRequest,
      this.volumesOf,
    );
    if (claim.reserved) t.reserve(choice.option.capacity, 1);
    this.claims.open(claim);
    claim.add(pod, shape);
    this.filler.fill(claim);
    return undefined;
  }
}

/** A pod that failed at a relaxation level, and why: it is tried again from that level. */
type Retry = { q: QueuedPod; level: number; reason: string };

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
