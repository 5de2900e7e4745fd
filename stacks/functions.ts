// The four control-plane functions: where their code is, how they are triggered and what each may do. The stack
// reads only this table, so moving a handler or changing a trigger is a one-line change here. Lifecycle and the
// disruption sweep are use-cases, not functions: the provisioner, the cluster FIFO queue's single consumer, runs
// them (shared/controllers/dispatch.ts). Two event source mappings on one queue would split its messages between
// them at random, and the cluster must keep a single writer.
export type FunctionName = 'provisioner' | 'interruption' | 'termination' | 'gc';

export const FUNCTION_NAMES: readonly FunctionName[] = ['provisioner', 'interruption', 'termination', 'gc'];

export type QueueName = 'events' | 'interruption' | 'termination';

/** How a function is invoked. */
export type Trigger =
  /** An SQS event source mapping with partial batch responses. */
  | { queue: QueueName; batchSize: number }
  /** Invoked directly by EventBridge Scheduler with a GcTick (GarbageCollect, or RefreshPrices every 12 hours). */
  | { schedule: 'gc' };

/** Permission groups (stacks/permissions.ts); each function gets only the groups it lists. */
export type Permission =
  | 'read-state'
  | 'write-state'
  | 'describe-ec2'
  | 'launch'
  | 'instance-profiles'
  | 'terminate-instances'
  | 'delete-launch-templates'
  | 'pricing'
  | 'kubernetes'
  | 'send-events'
  | 'send-termination';

export interface FunctionSpec {
  /** The handler module, relative to the repository root; it exports `handler`. */
  entry: string;
  description: string;
  trigger: Trigger;
  timeoutSeconds: number;
  memoryMiB: number;
  permissions: readonly Permission[];
}

const entry = (name: FunctionName) => `functions/${name}/handler.ts`;

/** Everything a pass that may launch needs (provisioning, and replacements for interruption and disruption). */
const LAUNCHING: readonly Permission[] = ['describe-ec2', 'launch', 'instance-profiles'];
const CONTROL: readonly Permission[] = ['read-state', 'write-state', 'kubernetes', 'send-events', 'send-termination'];

export const FUNCTIONS: Readonly<Record<FunctionName, FunctionSpec>> = {
  provisioner: {
    entry: entry('provisioner'),
    description: 'Cluster FIFO queue consumer: provisioning, node lifecycle and the sweep, one writer per cluster',
    trigger: { queue: 'events', batchSize: 10 },
    // The solve is capped at 60 s; reads, writes and launches fit in the rest.
    timeoutSeconds: 120,
    // One full vCPU for the CPU-bound solve; 50k pending pods peak under 400 MiB and a 31k-pod cluster read at 383 MiB
    // (docs/performance.md, "Memory and the provisioner's memory size").
    memoryMiB: 1769,
    // Also what the lifecycle and the disruption sweep need: both run in this function.
    permissions: [...CONTROL, ...LAUNCHING, 'terminate-instances'],
  },
  interruption: {
    entry: entry('interruption'),
    description: 'Acts on spot interruptions, rebalance recommendations, state changes and scheduled changes',
    trigger: { queue: 'interruption', batchSize: 10 },
    // Replacements for displaced pods are planned and launched at once.
    timeoutSeconds: 120,
    memoryMiB: 1769,
    permissions: [...CONTROL, ...LAUNCHING],
  },
  termination: {
    entry: entry('termination'),
    description: 'Drains and terminates one NodeClaim a step at a time',
    trigger: { queue: 'termination', batchSize: 5 },
    timeoutSeconds: 60,
    memoryMiB: 512,
    permissions: [...CONTROL, 'terminate-instances'],
  },
  gc: {
    entry: entry('gc'),
    description:
      'Terminates orphaned instances, ends claims whose instance is gone, runs lifecycle timers, refreshes prices',
    trigger: { schedule: 'gc' },
    timeoutSeconds: 120,
    memoryMiB: 512,
    permissions: [
      'read-state',
      'write-state',
      'describe-ec2',
      'terminate-instances',
      'delete-launch-templates',
      // The RefreshPrices tick (every 12 hours) reads the Pricing API and the spot price history.
      'pricing',
      'kubernetes',
      'send-events',
      'send-termination',
    ],
  },
};

/** A function that may launch plans first, so it runs the solver (and ships its WebAssembly). */
export const plans = (spec: FunctionSpec): boolean => spec.permissions.includes('launch');

/** Fails loudly if a queue has more than one consumer or none. */
export function checkTopology(specs: Readonly<Record<FunctionName, FunctionSpec>> = FUNCTIONS): void {
  const consumers = new Map<QueueName, FunctionName>();
  for (const name of FUNCTION_NAMES) {
    const trigger = specs[name].trigger;
    if ('queue' in trigger) {
      const other = consumers.get(trigger.queue);
      if (other) throw new Error(`stacks/functions.ts: queue ${trigger.queue} has two consumers, ${other} and ${name}`);
      consumers.set(trigger.queue, name);
    }
  }
  for (const queue of ['events', 'interruption', 'termination'] as const) {
    if (!consumers.has(queue)) throw new Error(`stacks/functions.ts: queue ${queue} has no consumer`);
  }
}
