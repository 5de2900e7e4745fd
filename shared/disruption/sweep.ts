// One sweep's shared state: the capacity model, budgets, PDB limits and the commands decided so far. Each
// method (emptiness, drift, expiration, consolidation) reads and updates it, so later methods see earlier moves.

import { claimName } from '../api/ids';
import type { DisruptionReason, NodePool } from '../api/karpenter';
import type { Pod } from '../api/kube';
import type { DecisionRecord } from '../api/nodeclaim';
import { isRefused, unavailableKey } from '../catalog/offerings';
import type { InstanceType } from '../catalog/types';
import type { ClusterNode, MinValuesPolicy, PlannedNodeClaim, PreferencePolicy, SchedulingResult } from '../scheduling';
import { Deadline } from '../scheduling';
import { solve } from '../scheduling/index';
import type { PoolTotals } from './balanced';
import { remainingBudget } from './budgets';
import { candidateOf, type NodeFacts, nodeFacts } from './candidate';
import { CapacityModel, type FitResult } from './capacity';
import { PdbLimits } from './pdb';
import type { CommandReason, DisruptionCommand, DisruptionInput, DisruptionOptions, SweepCursor } from './types';

export const DEFAULTS = {
  minSavingFraction: 0.05,
  spotToSpotConsolidation: false as boolean,
  spotToSpotMinTypes: 15,
  nominationProtectionMs: 20_000,
  maxMergeCandidates: 100,
  mergeSearchBudget: 10,
  maxSolverChecks: 4,
  maxSplitChecks: 2,
  maxBatchCandidates: 300,
  churnLimit: 3,
  churnWindowMs: 3_600_000,
  minValuesPolicy: 'Strict' as MinValuesPolicy,
  preferencePolicy: 'Respect' as PreferencePolicy,
} satisfies Required<Omit<DisruptionOptions, 'timer' | 'timeBudgetMs'>>;

export type Settings = typeof DEFAULTS;

/** Pod copies without their binding, for the solver to place afresh. */
const unbound = (pods: readonly Pod[]): Pod[] =>
  pods.map((p) => ({ ...p, spec: { ...p.spec, nodeName: undefined } as Pod['spec'] }));

export class Sweep {
  readonly settings: Settings;
  readonly facts: NodeFacts[];
  readonly model: CapacityModel;
  readonly pdbs: PdbLimits;
  readonly commands: DisruptionCommand[] = [];
  /** Blockers per node index for candidates considered and not chosen. */
  readonly rejected = new Map<number, string[]>();
  /** Node indices some command already takes. */
  readonly taken = new Set<number>();
  /** Empty nodes (pods free to evict only) whose pods would need a new node: consolidation judges them (forced.ts). */
  readonly notEmptied = new Set<number>();
  /** Why consolidation may not judge a node at all, by node index: Karpenter's `Unconsolidatable` messages. */
  readonly unconsolidatable = new Map<number, string>();
  readonly pools: Map<string, NodePool>;
  /** Instance types with offerings cached as unavailable switched off. */
  readonly instanceTypes: Map<string, InstanceType[]>;
  /** Each NodePool's cost and disruption cost over all its nodes, for Balanced scoring (balanced.ts). */
  readonly poolTotals = new Map<string, PoolTotals>();
  private readonly poolNodes = new Map<string, number>();
  private readonly disrupting = new Map<string, number>();
  solverCalls = 0;
  /** The planning deadline on `timer`'s clock (undefined: none), read as the solver reads its own. */
  private readonly deadlineAt: number | undefined;
  private readonly deadline: Deadline;
  /** Candidates the deadline kept from being judged (node indices). */
  readonly deferred = new Set<number>();
  /** Consolidation candidates judged this sweep (taken, or rejected on their merits), for the cursor. */
  readonly judged = new Set<number>();
  /** Where the next sweep resumes, when the deadline cut this one short (consolidation.ts). */
  cursor: SweepCursor | undefined;

  /** `started` is when planning began on `timer`'s clock: the time budget counts from there. */
  constructor(
    readonly input: DisruptionInput,
    readonly timer: () => number = () => performance.now(),
    started: number = timer(),
  ) {
    this.settings = { ...DEFAULTS, ...stripUndefined(input.options ?? {}) };
    const budget = input.options?.timeBudgetMs;
    this.deadlineAt = budget === undefined ? undefined : started + Math.max(0, budget);
    this.deadline = new Deadline(timer, this.deadlineAt);
    this.facts = nodeFacts(input, this.settings.nominationProtectionMs);
    this.model = new CapacityModel(input.nodes);
    this.pools = new Map(input.nodePools.map((p) => [p.metadata.name, p]));
    this.instanceTypes = withoutUnavailable(input);
    for (const f of this.facts) {
      const totals = this.poolTotals.get(f.poolName) ?? { cost: 0, disruptionCost: 0 };
      this.poolTotals.set(f.poolName, {
        cost: totals.cost + f.price,
        disruptionCost: totals.disruptionCost + f.rescheduleCost,
      });
      // Budgets count as Karpenter does (docs/disruption.md, Budgets): only initialized nodes make up the pool (a
      // replacement still coming does not raise a percentage), and a node already going or not Ready uses up a slot.
      if (f.initialized || f.disrupting) {
        this.poolNodes.set(f.poolName, (this.poolNodes.get(f.poolName) ?? 0) + 1);
        if (f.disrupting || f.n.notReady) this.disrupting.set(f.poolName, (this.disrupting.get(f.poolName) ?? 0) + 1);
      }
      // Drifted and expired nodes are going soon: moving pods onto them would move those pods twice.
      if (f.drift || f.expired) this.model.close(f.idx);
    }
    const bound = input.nodes.flatMap((n) => n.node.pods);
    this.pdbs = new PdbLimits(input.pdbs ?? [], bound);
    if (input.pendingPods?.length) this.model.reserve(input.pendingPods);
  }

  poolSize(pool: string): number {
    return this.poolNodes.get(pool) ?? 0;
  }

  budgetLeft(pool: string, reason: DisruptionReason): number {
    const p = this.pools.get(pool);
    if (!p) return 0;
    return remainingBudget(p, this.poolNodes.get(pool) ?? 0, this.disrupting.get(pool) ?? 0, reason, this.input.now);
  }

  /** Whether the planning budget is spent. Once true it stays true. */
  outOfTime(): boolean {
    return this.deadline.passed();
  }

  /** The solver's share of the budget: what is left of it, on the same clock, so a solve stops where the sweep must
   * (shared/scheduling/deadline.ts). A solve past the deadline still places its first pod, so a sweep always
   * judges at least one candidate. */
  private solveBudget(): { timeoutMs?: number; now?: () => number } {
    if (this.deadlineAt === undefined) return {};
    return { timeoutMs: Math.max(0, this.deadlineAt - this.timer()), now: this.timer };
  }

  /** Karpenter's scheduling operator settings: replacements are solved as provisioning solves them. */
  private policies(): { minValuesPolicy: MinValuesPolicy; preferencePolicy: PreferencePolicy } {
    return { minValuesPolicy: this.settings.minValuesPolicy, preferencePolicy: this.settings.preferencePolicy };
  }

  reject(idx: number, blocker: string): void {
    const list = this.rejected.get(idx);
    if (list) {
      if (!list.includes(blocker)) list.push(blocker);
    } else this.rejected.set(idx, [blocker]);
  }

  /** Solves pods onto new capacity only (cheap: no existing nodes), for replacements. */
  solveNew(pods: readonly Pod[], salt: string): SchedulingResult {
    this.solverCalls++;
    return solve({
      pods: unbound(pods),
      nodePools: this.input.nodePools,
      nodeClasses: this.input.nodeClasses,
      instanceTypes: this.instanceTypes,
      ...(this.input.daemonSets ? { daemonSets: this.input.daemonSets } : {}),
      options: { nameNodeClaim: this.namer(salt), ...this.policies(), ...this.solveBudget() },
    });
  }

  /** Full solve with the cluster as the sweep left it, `removed` gone: for pods that depend on other pods. */
  solveWithCluster(pods: readonly Pod[], removed: ReadonlySet<number>, salt: string): SchedulingResult {
    this.solverCalls++;
    const existingNodes: ClusterNode[] = this.input.nodes.map((n, i) => {
      const moved = this.model.moved[i] as Pod[];
      const gone = removed.has(i) || this.taken.has(i) || this.model.closed[i] === 1;
      return {
        ...n.node,
        pods: removed.has(i) ? n.node.pods.filter((p) => !pods.includes(p)) : [...n.node.pods, ...moved],
        ...(gone ? { markedForDeletion: true } : {}),
      };
    });
    return solve({
      pods: unbound(pods),
      nodePools: this.input.nodePools,
      nodeClasses: this.input.nodeClasses,
      instanceTypes: this.instanceTypes,
      existingNodes,
      ...(this.input.daemonSets ? { daemonSets: this.input.daemonSets } : {}),
      options: { nameNodeClaim: this.namer(salt), ...this.policies(), ...this.solveBudget() },
    });
  }

  private namer(salt: string): (pool: string, i: number) => string {
    // Deterministic for the same sweep (a replayed sweep names the same claims), distinct across sweeps and calls.
    return (pool, i) => claimName(pool, [{ namespace: 'disruption', name: `${salt}@${this.input.now}#${i}` }]);
  }

  /** Records a command: takes its candidates, commits its moves and spends the disruption budgets. */
  addCommand(
    reason: CommandReason,
    members: NodeFacts[],
    fit: FitResult | undefined,
    replacements: PlannedNodeClaim[],
    detail: Record<string, unknown> = {},
  ): DisruptionCommand {
    if (fit) this.model.commit(fit);
    for (const m of members) {
      this.taken.add(m.idx);
      this.model.close(m.idx);
      this.rejected.delete(m.idx);
      this.disrupting.set(m.poolName, (this.disrupting.get(m.poolName) ?? 0) + 1);
    }
    const moves: Record<string, string[]> = {};
    for (const p of fit?.placements ?? []) {
      const target = this.input.nodes[p.node]?.node.name ?? '';
      const list = moves[target] ?? [];
      list.push(`${p.pod.metadata.namespace}/${p.pod.metadata.name}`);
      moves[target] = list;
    }
    const oldPrice = members.reduce((s, m) => s + m.price, 0);
    const newPrice = replacements.reduce((s, r) => s + r.cheapest.price, 0);
    const id = `${reason.toLowerCase()}-${this.input.now}-${this.commands.length + 1}`;
    const candidates = members.map(candidateOf);
    const saving = round(oldPrice - newPrice);
    const record: DecisionRecord = {
      id,
      cluster: this.input.cluster ?? '',
      at: new Date(this.input.now).toISOString(),
      kind: 'Disrupt',
      nodeClaims: [...candidates.map((c) => c.nodeClaim), ...replacements.map((r) => r.name)],
      summary: summarize(
        reason,
        candidates.map((c) => c.name),
        replacements,
        saving,
      ),
      detail: {
        reason,
        forceful: reason === 'Expired',
        chosen: candidates,
        savingPerHour: saving,
        replacements: replacements.map((r) => ({
          name: r.name,
          nodePool: r.nodePool,
          instanceType: r.cheapest.instanceType,
          zone: r.cheapest.zone,
          capacityType: r.cheapest.capacityType,
          pricePerHour: r.cheapest.price,
          ...(r.cheapest.overlay ? { overlay: r.cheapest.overlay } : {}),
          options: r.instanceTypeOptions.length,
        })),
        moves,
        ...detail,
      },
    };
    const command: DisruptionCommand = {
      id,
      reason,
      forceful: reason === 'Expired',
      candidates,
      replacements,
      moves,
      savingPerHour: saving,
      record,
    };
    this.commands.push(command);
    return command;
  }
}

function summarize(reason: CommandReason, names: string[], replacements: PlannedNodeClaim[], saving: number): string {
  const what = names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ');
  const repl = replacements.length
    ? ` replaced by ${replacements.map((r) => `${r.cheapest.instanceType} ${r.cheapest.capacityType}`).join(', ')}`
    : ' deleted';
  return `${reason}: ${what}${repl}, saving $${saving.toFixed(4)}/h`;
}

export const round = (x: number): number => Math.round(x * 1e6) / 1e6;

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function withoutUnavailable(input: DisruptionInput): Map<string, InstanceType[]> {
  const gone = new Set((input.unavailableOfferings ?? []).filter((u) => u.expiresAt > input.now).map(unavailableKey));
  if (gone.size === 0) return input.instanceTypes;
  const out = new Map<string, InstanceType[]>();
  for (const [pool, types] of input.instanceTypes) {
    out.set(
      pool,
      types.map((t) => ({
        ...t,
        offerings: t.offerings.map((o) => (isRefused(gone, t.name, o) ? { ...o, available: false } : o)),
      })),
    );
  }
  return out;
}
