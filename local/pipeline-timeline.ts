// The pipeline's timeline: what happened, in virtual time, as the simulated cloud and cluster and the claim store
// report it.
import type { NodeClaim } from '../shared/api/nodeclaim';
import type { SimCloud, SimCluster } from '../shared/sim';

export interface TimelineEntry {
  /** Virtual epoch ms. */
  at: number;
  kind:
    | 'batch-sent'
    | 'claim'
    | 'instance-launched'
    | 'instance-terminated'
    | 'node-registered'
    | 'node-ready'
    | 'node-deleted'
    | 'pod-bound'
    | 'pod-evicted'
    | 'pod-pending'
    | 'invocation-failed'
    | 'dead-letter';
  text: string;
  subject?: string;
  detail?: string;
}

export class PipelineTimeline {
  readonly entries: TimelineEntry[] = [];
  private claimStates = new Map<string, string>();

  constructor(
    private readonly now: () => number,
    private readonly onEntry?: (entry: TimelineEntry) => void,
  ) {}

  note(kind: TimelineEntry['kind'], text: string, subject?: string, detail?: string): void {
    const entry: TimelineEntry = {
      at: this.now(),
      kind,
      text,
      ...(subject !== undefined ? { subject } : {}),
      ...(detail !== undefined ? { detail } : {}),
    };
    this.entries.push(entry);
    this.onEntry?.(entry);
  }

  /** Notes a claim the first time it is seen and each time its state changes. */
  recordClaim(c: NodeClaim): void {
    if (this.claimStates.get(c.name) === c.state) return;
    const first = !this.claimStates.has(c.name);
    this.claimStates.set(c.name, c.state);
    const where = c.instanceType ? ` (${[c.instanceType, c.capacityType, c.zone].filter(Boolean).join(' ')})` : '';
    const what = first
      ? `claim ${c.name} created: NodePool ${c.nodePool}, ${c.nominatedPods.length} pod(s) nominated${c.state === 'Pending' ? '' : ` → ${c.state}${where}`}`
      : `claim ${c.name} → ${c.state}${where}`;
    this.note('claim', what, c.name, c.state);
  }

  /** Notes instance launches and terminations, node lifecycle and pod moves as they happen. */
  watch(cloud: SimCloud, sim: SimCluster): void {
    cloud.onLaunch(({ instance, claim }) =>
      this.note(
        'instance-launched',
        `instance ${instance.instanceId} launched for ${claim.name}: ${instance.instanceType} ${instance.capacityType} ${instance.zone}`,
        instance.instanceId,
      ),
    );
    cloud.onDelete((instance) =>
      this.note('instance-terminated', `instance ${instance.instanceId} terminated`, instance.instanceId),
    );
    sim.onChange((change) => {
      switch (change.type) {
        case 'node-registered':
        case 'node-ready':
        case 'node-deleted':
          this.note(change.type, `node ${change.node} ${change.type.slice(5)}`, change.node);
          return;
        case 'pod-bound':
          this.note('pod-bound', `pod ${change.pod} bound to ${change.node}`, change.pod, change.node);
          return;
        case 'pod-evicted':
          this.note('pod-evicted', `pod ${change.pod} evicted`, change.pod);
          return;
        case 'pod-pending':
          this.note('pod-pending', `pod ${change.pod} pending again (recreated by its controller)`, change.pod);
          return;
        case 'pod-deleted':
          return;
      }
    });
  }
}
