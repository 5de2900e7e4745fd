// Reading a scenario run the way Karpenter's disruption tests read their cluster: which claims were disrupted and
// why, what replaced them, what the sweep said about the ones it kept. The builders themselves are the scenario
// builders (one place for test builders).
import type { NodeClaim } from '../shared/api/nodeclaim';
import { parseDuration } from '../shared/api/quantity';
import type { TimelineEntry } from '../shared/sim/scenario/recorder';
import { SCENARIO_START, type ScenarioRun } from '../shared/sim/scenario/runner';
import type { StepAction } from '../shared/sim/scenario/types';

import { manifests } from './scenario';

export * from './scenario';

export const NO_VIOLATIONS = { pdb: 0, doNotDisrupt: 0, budget: 0 };

export const offset = (e: TimelineEntry): number => parseDuration(e.at);

export const events = (r: ScenarioRun, type: TimelineEntry['type'], reason?: string): TimelineEntry[] =>
  r.timeline.filter((e) => e.type === type && (reason === undefined || e.reason === reason));

/** The objects Karpenter's `Unconsolidatable` events named, once each, as `Kind/name: message`, sorted. */
export const unconsolidatable = (r: ScenarioRun): string[] =>
  [
    ...new Set(
      r.world.cluster.events
        .filter((e) => e.reason === 'Unconsolidatable')
        .map((e) => `${e.involved.kind}/${e.involved.name}: ${e.message}`),
    ),
  ].sort();

/** What `unconsolidatable` reads when every live claim and its Node got the event with this message. */
export async function forEachNode(r: ScenarioRun, message: string): Promise<string[]> {
  const claims = await liveClaims(r);
  return claims
    .flatMap((c) => [`NodeClaim/${c.name}: ${message}`, ...(c.nodeName ? [`Node/${c.nodeName}: ${message}`] : [])])
    .sort();
}

/** Claims that started disrupting, with the command's reason. */
export const disrupted = (r: ScenarioRun, reason?: string): TimelineEntry[] => events(r, 'Disrupting', reason);

/** Claims launched as replacements of a disruption with this reason. */
export const replacementsFor = (r: ScenarioRun, reason: string): TimelineEntry[] =>
  events(r, 'Launched').filter((e) => e.reason === `Replacement (${reason})`);

export async function liveClaims(r: ScenarioRun): Promise<NodeClaim[]> {
  return r.world.store.list({ states: ['Launched', 'Registered', 'Initialized', 'Draining'] });
}

/** Every claim, terminated ones too, in creation order. */
export async function allClaims(r: ScenarioRun): Promise<NodeClaim[]> {
  return (await r.world.store.list()).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** The blockers the sweep gave in its Keep records for a claim, oldest first. */
export async function keepReasons(r: ScenarioRun, claim: string): Promise<string[]> {
  const records = await r.world.store.listDecisions(claim);
  return records.filter((d) => d.kind === 'Keep').map((d) => d.summary);
}

/** The scenario steps Karpenter's tests lean on, as actions. */
export const annotate = (
  target: { kind: 'Node' | 'Pod'; name?: string; selector?: Record<string, string> },
  values: Record<string, string | null>,
): StepAction => ({ type: 'annotate', target: { namespace: 'default', ...target }, values });

export const complete = (selector: Record<string, string>, phase: 'Succeeded' | 'Failed'): StepAction => ({
  type: 'complete',
  target: { kind: 'Pod', namespace: 'default', selector },
  phase,
});

export const patchPool = (spec: Record<string, unknown>, name = 'general'): StepAction => ({
  type: 'patch',
  target: { kind: 'NodePool', namespace: '', name },
  mergePatch: { spec },
});

export const patchNodeClass = (spec: Record<string, unknown>, name = 'default'): StepAction => ({
  type: 'patch',
  target: { kind: 'EC2NodeClass', namespace: '', name },
  mergePatch: { spec },
});

export const nodeCondition = (
  selector: Record<string, string>,
  status: 'True' | 'False' | 'Unknown',
  condition = 'Ready',
): StepAction => ({
  type: 'nodeCondition',
  target: { kind: 'Node', namespace: 'default', selector },
  condition,
  status,
});

/** The cloud steps: publish an AMI release for an alias family, retag a subnet or security group, change the
 * cluster's Kubernetes version. */
export const publishAmi = (
  alias: string,
  o: { kubernetesVersion?: string; id?: string; arch?: 'amd64' | 'arm64' } = {},
): StepAction => {
  const [family = '', version = ''] = alias.split('@');
  return { type: 'publishAmi', family, version, ...o };
};

export const retag = (
  kind: 'subnet' | 'securityGroup',
  id: string,
  tags: Record<string, string>,
  zone?: string,
): StepAction => ({ type: 'retag', kind, id, tags, ...(zone ? { zone } : {}) });

export const kubernetesVersion = (version: string): StepAction => ({ type: 'kubernetesVersion', version });

/** Why each drifted node drifted, as the Disrupt decisions recorded it (node name → reason). */
export async function driftReasons(r: ScenarioRun): Promise<string[]> {
  const claims = new Set(events(r, 'Disrupting', 'Drifted').map((e) => e.nodeClaim));
  const out: string[] = [];
  for (const claim of claims) {
    for (const d of await r.world.store.listDecisions(claim)) {
      const drift = d.kind === 'Disrupt' ? (d.detail as { drift?: Record<string, string> }).drift : undefined;
      if (drift) out.push(...Object.values(drift));
    }
  }
  return [...new Set(out)];
}

/** The `seed` step: Nodes and pods already running at the step (docs/scenarios.md, Seeding running nodes). */
export function seed(...raw: Record<string, unknown>[]): StepAction {
  const set = manifests(...raw);
  return { type: 'seed', nodes: set.nodes, pods: set.pods, sources: ['test'] };
}

/** A running Node of the `general` pool: instance type, capacity type and zone by label, `age` before the start. */
export function seededNode(
  name: string,
  o: {
    type?: string;
    pool?: string;
    capacityType?: string;
    zone?: string;
    age?: number;
    annotations?: Record<string, string>;
  } = {},
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      creationTimestamp: new Date(Date.parse(SCENARIO_START) - (o.age ?? 0)).toISOString(),
      labels: {
        'karpenter.sh/nodepool': o.pool ?? 'general',
        'node.kubernetes.io/instance-type': o.type ?? 'm5.large',
        'karpenter.sh/capacity-type': o.capacityType ?? 'on-demand',
        'topology.kubernetes.io/zone': o.zone ?? 'us-east-1a',
      },
      ...(o.annotations ? { annotations: o.annotations } : {}),
    },
    spec: {},
  };
}

/** A pod bound to a seeded node; `owner` ReplicaSet (default, recreated when evicted), DaemonSet, Node (a static
 * pod's mirror) or none; `startedAgo` before the start. */
export function seededPod(
  name: string,
  node: string,
  o: {
    cpu?: string;
    owner?: 'ReplicaSet' | 'DaemonSet' | 'Node' | 'none';
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    startedAgo?: number;
    priorityClassName?: string;
  } = {},
): Record<string, unknown> {
  const owner = o.owner ?? 'ReplicaSet';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      labels: o.labels ?? { app: name },
      ...(o.annotations ? { annotations: o.annotations } : {}),
      ...(owner === 'none'
        ? {}
        : {
            ownerReferences: [
              {
                apiVersion: owner === 'Node' ? 'v1' : 'apps/v1',
                kind: owner,
                name: owner === 'Node' ? node : `${name}-owner`,
                uid: `${name}-owner-uid`,
                ...(owner === 'ReplicaSet' ? { controller: true } : {}),
              },
            ],
          }),
    },
    spec: {
      nodeName: node,
      ...(o.priorityClassName ? { priorityClassName: o.priorityClassName } : {}),
      containers: [{ name: 'app', image: 'app', resources: { requests: { cpu: o.cpu ?? '500m', memory: '256Mi' } } }],
    },
    status: {
      phase: 'Running',
      startTime: new Date(Date.parse(SCENARIO_START) - (o.startedAgo ?? 0)).toISOString(),
    },
  };
}
