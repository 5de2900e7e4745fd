// An independent check on the control plane, counting what must never happen while the sweep disrupts nodes
// gracefully (Empty, Underutilized, Drifted):
// - pdb: a pod left a node under such a disruption while its PodDisruptionBudget allowed no disruption (its
//   available disruptions would go below zero), computed here from the pods, not from the eviction API's answer;
// - doNotDisrupt: a pod annotated karpenter.sh/do-not-disrupt (active at the time) left such a node;
// - budget: when a command starts, its NodePool has more nodes disrupting than the NodePool's budget allows for
//   the command's reason.
// Interruptions and forceful expiration are outside these rules (their drains end at a deadline by design), and so
// are pods deleted with a drifted node whose claim has a terminationGracePeriod: Karpenter drifts such a node past
// its pods' blockers and deletes them when the period ends (docs/disruption.md, Blockers).

import { doNotDisruptActive } from '../../api/do-not-disrupt';
import type { DisruptionReason, NodePool } from '../../api/karpenter';
import type { Pod, PodDisruptionBudget } from '../../api/kube';
import type { NodeClaim } from '../../api/nodeclaim';
import { budgetCap, disruptionHeadroom, selects } from '../../disruption';
import type { ClusterActivity, PodRemoval } from './activity';
import type { DisruptingNode } from './disruption-driver';

export interface Violations {
  pdb: number;
  doNotDisrupt: number;
  budget: number;
}

export interface ViolationRecord {
  at: number;
  kind: keyof Violations;
  detail: string;
}

const GRACEFUL: ReadonlySet<string> = new Set(['Empty', 'Underutilized', 'Drifted']);

interface ObserverSources {
  /** Nodes the sweep is disrupting now. */
  disrupting: () => ReadonlyMap<string, DisruptingNode>;
  /** Every pod in the cluster, bound or pending. */
  pods: () => Pod[];
  pdbs: () => PodDisruptionBudget[];
  nodePools: () => Promise<NodePool[]>;
  claims: () => Promise<NodeClaim[]>;
  now: () => number;
}

export class ViolationObserver {
  readonly counts: Violations = { pdb: 0, doNotDisrupt: 0, budget: 0 };
  readonly records: ViolationRecord[] = [];

  constructor(
    activity: ClusterActivity,
    private readonly sources: ObserverSources,
  ) {
    activity.onRemoval((r) => this.checkRemoval(r));
  }

  private add(kind: keyof Violations, detail: string): void {
    this.counts[kind]++;
    this.records.push({ at: this.sources.now(), kind, detail });
  }

  private checkRemoval(r: PodRemoval): void {
    const d = this.sources.disrupting().get(r.node);
    if (!d || d.forceful || !GRACEFUL.has(d.reason)) return;
    if (d.reason === 'Drifted' && d.terminationGracePeriod && r.how === 'deleted') return;
    const key = `${r.pod.metadata.namespace}/${r.pod.metadata.name}`;
    if (doNotDisruptActive(r.pod, this.sources.now())) {
      this.add('doNotDisrupt', `${key} (do-not-disrupt) left ${r.node} during a ${d.reason} disruption`);
    }
    const pods = this.sources.pods().filter((p) => `${p.metadata.namespace}/${p.metadata.name}` !== key);
    for (const pdb of this.sources.pdbs()) {
      if (!selects(pdb, r.pod)) continue;
      // Before the removal the pod was healthy; allowed < 1 then means this removal took the budget below zero.
      const allowed = disruptionHeadroom(pdb, [...pods, r.pod]);
      if (allowed < 1) {
        this.add('pdb', `${key} left ${r.node} while PodDisruptionBudget ${pdb.metadata.name} allowed ${allowed}`);
      }
    }
  }

  /** Called when a command starts disrupting nodes: its pool must stay within the budget for its reason. */
  async checkStart(started: DisruptingNode[]): Promise<void> {
    const graceful = started.filter((d) => !d.forceful && GRACEFUL.has(d.reason));
    if (graceful.length === 0) return;
    const [pools, claims] = await Promise.all([this.sources.nodePools(), this.sources.claims()]);
    const disrupting = this.sources.disrupting();
    for (const poolName of new Set(graceful.map((d) => d.nodePool))) {
      const pool = pools.find((p) => p.metadata.name === poolName);
      if (!pool) continue;
      const live = claims.filter((c) => c.nodePool === poolName && c.state !== 'Terminated' && c.state !== 'Failed');
      const going = new Set<string>();
      for (const c of live) if (c.state === 'Draining' && c.nodeName) going.add(c.nodeName);
      for (const d of disrupting.values()) if (d.nodePool === poolName) going.add(d.node);
      for (const reason of new Set(graceful.filter((d) => d.nodePool === poolName).map((d) => d.reason))) {
        const cap = budgetCap(pool, live.length, reason as DisruptionReason, this.sources.now()).allowed;
        if (going.size > cap) {
          this.add(
            'budget',
            `NodePool ${poolName}: ${going.size} node(s) disrupting, budget for ${reason} allows ${cap}`,
          );
        }
      }
    }
  }
}
