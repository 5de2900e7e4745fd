// Scenario builders for tests: a small on-demand NodePool over a handful of instance types (so solves are fast),
// workloads by name and size, and a runner with the real disruption sweep. Not part of any bundle.

import { buildManifestSet } from '../shared/api/build';
import type { EC2NodeClass, NodePool } from '../shared/api/karpenter';
import type { Deployment, PodDisruptionBudget } from '../shared/api/kube';
import { emptyManifestSet, type ManifestSet } from '../shared/api/manifest-set';
import { loadCatalog } from '../shared/catalog';
import { ValidationError } from '../shared/errors';
import { catalogEngine } from '../shared/sim/default-engine';
import { productionSweepEngine } from '../shared/sim/scenario/default-sweep';
import { parseScenario } from '../shared/sim/scenario/parse';
import { runScenario, type ScenarioOptions, type ScenarioRun } from '../shared/sim/scenario/runner';
import type { Scenario, ScenarioStep, StepAction } from '../shared/sim/scenario/types';
import { nodePool as basePool, ec2NodeClass } from './builders';

const engine = catalogEngine(loadCatalog());

export function manifests(...raw: Record<string, unknown>[]): ManifestSet {
  const errors: string[] = [];
  const { set } = buildManifestSet(
    raw.map((r, i) => ({ file: 'test', doc: i + 1, raw: r })),
    errors,
  );
  if (errors.length) throw new ValidationError(errors);
  return set;
}

export interface PoolOptions {
  name?: string;
  types?: string[];
  capacityTypes?: string[];
  consolidateAfter?: string;
  policy?: NodePool['spec']['disruption']['consolidationPolicy'];
  budgets?: { nodes: string; reasons?: string[]; schedule?: string; duration?: string }[];
  labels?: Record<string, string>;
  zones?: string[];
  terminationGracePeriod?: string;
  /** The template's annotations (copied to NodeClaims and Nodes). */
  annotations?: Record<string, string>;
  /** Default Never. */
  expireAfter?: string;
}

/** A scenario NodePool manifest: on-demand m5 large to 4xlarge in us-east-1a, consolidating after 2m, never
 * expiring, with the API's default budget unless `budgets` is given. */
export function nodePool(o: PoolOptions = {}): Record<string, unknown> {
  const p = basePool({
    name: o.name ?? 'general',
    requirements: [
      {
        key: 'node.kubernetes.io/instance-type',
        operator: 'In',
        values: o.types ?? ['m5.large', 'm5.xlarge', 'm5.2xlarge', 'm5.4xlarge'],
      },
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: o.capacityTypes ?? ['on-demand'] },
      { key: 'topology.kubernetes.io/zone', operator: 'In', values: o.zones ?? ['us-east-1a'] },
    ],
    ...(o.labels ? { labels: o.labels } : {}),
    ...(o.annotations ? { annotations: o.annotations } : {}),
    ...(o.terminationGracePeriod ? { terminationGracePeriod: o.terminationGracePeriod } : {}),
    expireAfter: o.expireAfter ?? 'Never',
  });
  const { weight: _weight, ...spec } = p.spec;
  const { budgets: _budgets, ...disruption } = spec.disruption;
  return {
    ...p,
    spec: {
      ...spec,
      disruption: {
        ...disruption,
        consolidationPolicy: o.policy ?? 'WhenEmptyOrUnderutilized',
        consolidateAfter: o.consolidateAfter ?? '2m',
        ...(o.budgets ? { budgets: o.budgets } : {}),
      },
    },
  };
}

export interface StaticPoolOptions {
  name?: string;
  /** m5.large unless given. */
  types?: string[];
  limits?: Record<string, string>;
  /** 100% unless given, so only the rule under test holds a disruption back. */
  budgets?: { nodes: string; reasons?: string[] }[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  taints?: { key: string; value?: string; effect: string }[];
}

/** A static NodePool manifest (`spec.replicas`), named `static` unless given: the scenario pool's shape, no weight. */
export function staticPool(replicas: number, o: StaticPoolOptions = {}): Record<string, unknown> {
  const p = nodePool({
    name: o.name ?? 'static',
    types: o.types ?? ['m5.large'],
    budgets: o.budgets ?? [{ nodes: '100%' }],
    ...(o.labels ? { labels: o.labels } : {}),
    ...(o.annotations ? { annotations: o.annotations } : {}),
  }) as { spec: { template: { spec: Record<string, unknown> } } };
  const template = o.taints
    ? { ...p.spec.template, spec: { ...p.spec.template.spec, taints: o.taints } }
    : p.spec.template;
  return { ...p, spec: { ...p.spec, template, replicas, ...(o.limits ? { limits: o.limits } : {}) } };
}

/** The EC2NodeClass `default`: alias al2023@latest, subnets and security groups tagged karpenter.sh/discovery: test. */
export const nodeClass = (spec: Partial<EC2NodeClass['spec']> = {}): Record<string, unknown> => ({
  ...ec2NodeClass(spec, 'default', 'test'),
});

export function deployment(
  name: string,
  replicas: number,
  o: {
    cpu?: string;
    memory?: string;
    annotations?: Record<string, string>;
    nodeSelector?: Record<string, string>;
  } = {},
): Record<string, unknown> {
  const d: Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name }, ...(o.annotations ? { annotations: o.annotations } : {}) },
        spec: {
          ...(o.nodeSelector ? { nodeSelector: o.nodeSelector } : {}),
          containers: [
            { name: 'app', image: 'app', resources: { requests: { cpu: o.cpu ?? '500m', memory: o.memory ?? '1Gi' } } },
          ],
        },
      },
    },
  } as Deployment;
  return d as unknown as Record<string, unknown>;
}

export function pdb(
  name: string,
  app: string,
  spec: { maxUnavailable?: number | string; minAvailable?: number | string },
) {
  const p: PodDisruptionBudget = {
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace: 'default' },
    spec: { ...spec, selector: { matchLabels: { app } } },
  };
  return { apiVersion: 'policy/v1', ...p } as unknown as Record<string, unknown>;
}

export const step = (at: number, action: StepAction, every?: number): ScenarioStep => ({
  at,
  ...(every ? { every } : {}),
  path: `spec.steps[@${at}]`,
  action,
});

export const apply = (...raw: Record<string, unknown>[]): StepAction => ({
  type: 'apply',
  set: raw.length ? manifests(...raw) : emptyManifestSet(),
  sources: ['test'],
});

export const scale = (name: string, replicas: number): StepAction => ({
  type: 'scale',
  target: { kind: 'Deployment', namespace: 'default', name },
  replicas,
});

export function scenario(until: number, steps: ScenarioStep[], o: Partial<Scenario> = {}): Scenario {
  return {
    file: 'test.yaml',
    name: 'test',
    nodeReadyAfter: 45_000,
    sweepEvery: 60_000,
    until,
    steps,
    warnings: [],
    ...o,
  };
}

export const MINUTE = 60_000;
export const HOUR = 3_600_000;

export function run(s: Scenario, options: ScenarioOptions = {}): Promise<ScenarioRun> {
  return runScenario(s, engine, { seed: 1, sweep: productionSweepEngine(), ...options });
}

/** A scenario file reader for parse tests whose scenarios name no files. */
export const noScenarioFiles = async (): Promise<ManifestSet> => {
  throw new ValidationError(['no files']);
};

/** The problems `parseScenario` reports for a scenario text, or [] when it parses. */
export async function scenarioProblems(text: string): Promise<string[]> {
  try {
    await parseScenario(text, 'scen.yaml', noScenarioFiles);
  } catch (err) {
    if (err instanceof ValidationError) return err.problems;
    throw err;
  }
  return [];
}
