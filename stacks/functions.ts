// The six control-plane functions: where their code is, how they are triggered and what each may do. The stack
// reads only this table, so moving a handler or changing a trigger is a one-line change here.
export type FunctionName = 'provisioner' | 'lifecycle' | 'interruption' | 'termination' | 'disruption' | 'gc';

export const FUNCTION_NAMES: readonly FunctionName[] = [
  'provisioner',
  'lifecycle',
  'interruption',
  'termination',
  'disruption',
  'gc',
];

export type QueueName = 'events' | 'interruption' | 'termination';

/** How a function is invoked. */
export type Trigger =
  /** An SQS event source mapping with partial batch responses. */
  | { queue: QueueName; batchSize: number }
  /** Invoked synchronously by the FIFO consumer, so its decisions stay serialized in the cluster's group. */
  | { invokedBy: FunctionName }
  /** Invoked directly by EventBridge Scheduler with a GcTick. */
  | { schedule: 'gc' };

/** Permission groups (stacks/permissions.ts); each function gets only the groups it lists. */
export type Permission =
  | 'read-state'
  | 'write-state'
  | 'describe-ec2'
  | 'launch'
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

/**
 * An SQS queue feeds exactly one function: two event source mappings on one queue would split its messages between
 * them at random. The cluster FIFO queue therefore has a single consumer, the provisioner, which hands NodeChanged to
 * lifecycle and Sweep to disruption (synchronously, so the cluster keeps a single writer).
 */
export const FUNCTIONS: Readonly<Record<FunctionName, FunctionSpec>> = {
  provisioner: {
    entry: entry('provisioner'),
    description: 'Plans and launches nodes for pending pods (cluster FIFO queue consumer)',
    trigger: { queue: 'events', batchSize: 10 },
    // The solve is capped at 60 s; reads, writes and launches fit in the rest.
    timeoutSeconds: 120,
    memoryMiB: 1769,
    permissions: [
      'read-state',
      'write-state',
      'describe-ec2',
      'launch',
      'pricing',
      'kubernetes',
      'send-events',
      'send-termination',
    ],
  },
  lifecycle: {
    entry: entry('lifecycle'),
    description: 'Registers and initializes nodes, binds nominated pods, fails stuck claims',
    trigger: { invokedBy: 'provisioner' },
    timeoutSeconds: 60,
    memoryMiB: 512,
    permissions: [
      'read-state',
      'write-state',
      'describe-ec2',
      'terminate-instances',
      'kubernetes',
      'send-events',
      'send-termination',
    ],
  },
  interruption: {
    entry: entry('interruption'),
    description: 'Acts on spot interruptions, rebalance recommendations, state changes and scheduled changes',
    trigger: { queue: 'interruption', batchSize: 10 },
    timeoutSeconds: 60,
    memoryMiB: 512,
    permissions: ['read-state', 'write-state', 'kubernetes', 'send-events', 'send-termination'],
  },
  termination: {
    entry: entry('termination'),
    description: 'Drains and terminates one NodeClaim a step at a time',
    trigger: { queue: 'termination', batchSize: 5 },
    timeoutSeconds: 60,
    memoryMiB: 512,
    permissions: ['read-state', 'write-state', 'terminate-instances', 'kubernetes', 'send-events', 'send-termination'],
  },
  disruption: {
    entry: entry('disruption'),
    description: 'Consolidation, drift, expiration and emptiness sweep',
    trigger: { invokedBy: 'provisioner' },
    timeoutSeconds: 120,
    memoryMiB: 1769,
    permissions: [
      'read-state',
      'write-state',
      'describe-ec2',
      'launch',
      'pricing',
      'kubernetes',
      'send-events',
      'send-termination',
    ],
  },
  gc: {
    entry: entry('gc'),
    description: 'Terminates orphaned instances, fails claims whose instance is gone, deletes stale launch templates',
    trigger: { schedule: 'gc' },
    timeoutSeconds: 120,
    memoryMiB: 512,
    permissions: [
      'read-state',
      'write-state',
      'describe-ec2',
      'terminate-instances',
      'delete-launch-templates',
      'kubernetes',
      'send-termination',
    ],
  },
};

/** Fails loudly if a queue has more than one consumer or a function is invoked by one that does not exist. */
export function checkTopology(specs: Readonly<Record<FunctionName, FunctionSpec>> = FUNCTIONS): void {
  const consumers = new Map<QueueName, FunctionName>();
  for (const name of FUNCTION_NAMES) {
    const trigger = specs[name].trigger;
    if ('queue' in trigger) {
      const other = consumers.get(trigger.queue);
      if (other) throw new Error(`stacks/functions.ts: queue ${trigger.queue} has two consumers, ${other} and ${name}`);
      consumers.set(trigger.queue, name);
    }
    if ('invokedBy' in trigger && !('queue' in specs[trigger.invokedBy].trigger)) {
      throw new Error(`stacks/functions.ts: ${name} is invoked by ${trigger.invokedBy}, which consumes no queue`);
    }
  }
  for (const queue of ['events', 'interruption', 'termination'] as const) {
    if (!consumers.has(queue)) throw new Error(`stacks/functions.ts: queue ${queue} has no consumer`);
  }
}
