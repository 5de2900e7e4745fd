// Reads a Scenario file: validates every field (errors name the file, the Scenario and the field path, as manifests'
// errors do) and reads the manifests its steps apply, relative to the scenario file, so a run starts only on good
// input.
import { dirname, resolve } from 'node:path';
import { buildManifestSet } from '../../api/build';
import {
  expectArray,
  expectDuration,
  expectEnum,
  expectInt,
  expectObject,
  expectString,
  isObj,
  type Obj,
  show,
} from '../../api/check';
import type { SourceDocument } from '../../api/documents';
import { readInputFile } from '../../api/input-file';
import { DEFAULT_INPUT_LIMITS } from '../../api/limits';
import type { ManifestSet } from '../../api/manifest-set';
import { loadManifests } from '../../api/parse';
import { Problems } from '../../api/problems';
import { parseDuration } from '../../api/quantity';
import { parseYaml } from '../../api/yaml';
import { parseDisruptionSettings } from '../../disruption';
import { ValidationError } from '../../errors';
import { CLOUD_STEPS, type CloudStepName, parseCloudStep } from './cloud-steps';
import { checkScenarioSize } from './limits';
import { OBJECT_STEPS, type ObjectStepName, parseObjectStep } from './object-steps';
import { parseReservationStep } from './reservation-step';
import { checkSeed } from './seed';
import {
  CLUSTER_SCOPED_DELETABLE,
  DELETABLE_KINDS,
  type DeletableKind,
  type ObjectTarget,
  PATCHABLE_KINDS,
  type PatchableKind,
  SCENARIO_API_VERSION,
  type Scenario,
  type ScenarioStep,
  type StepAction,
  WORKLOAD_KINDS,
  type WorkloadKind,
} from './types';

const DEFAULT_NODE_READY_AFTER = '45s';
const DEFAULT_SWEEP_EVERY = '1m';
const ACTIONS = [
  'apply',
  'scale',
  'delete',
  'patch',
  'interrupt',
  'seed',
  'capacityReservation',
  ...OBJECT_STEPS,
  ...CLOUD_STEPS,
] as const;
const STEP_KEYS = new Set<string>(['at', 'every', 'manifests', ...ACTIONS]);

const EXPECTED = `a Scenario (YAML with apiVersion ${SCENARIO_API_VERSION}, kind Scenario and spec)`;

/**
 * Reads and validates a scenario file and the manifests it applies. Throws ValidationError listing every problem;
 * `onWait` hears that a named pipe has no writer yet.
 */
export async function loadScenario(file: string, onWait?: (line: string) => void): Promise<Scenario> {
  const maxBytes = DEFAULT_INPUT_LIMITS.maxFileBytes;
  const text = await readInputFile(file, { expected: EXPECTED, maxBytes, ...(onWait ? { onWait } : {}) });
  return parseScenario(text, file, (paths) => loadManifests(paths.map((p) => resolve(dirname(file), p))));
}

/** Parses scenario text; `readManifests` loads the files of an `apply` step (relative paths, as written). */
export async function parseScenario(
  text: string,
  file: string,
  readManifests: (paths: string[]) => Promise<ManifestSet>,
): Promise<Scenario> {
  const errors: string[] = [];
  const docs = parseYaml(text, file, errors, DEFAULT_INPUT_LIMITS, () => file);
  if (docs.length > 1) errors.push(`${file}: holds ${docs.length} YAML documents; a scenario file holds one`);
  if (errors.length > 0) throw new ValidationError(errors);
  const raw: unknown = docs[0]?.value;
  // Something that is not a scenario at all gets one line, not one per missing field.
  if (!isObj(raw) || (raw.apiVersion === undefined && raw.kind === undefined)) {
    throw new ValidationError([`${file}: not a scenario; expected ${EXPECTED}`]);
  }
  const meta = isObj(raw.metadata) ? raw.metadata : {};
  const name = typeof meta.name === 'string' && meta.name ? meta.name : '<unnamed>';
  const p = new Problems({ file, doc: 1, kind: 'Scenario', name });
  if (raw.apiVersion !== SCENARIO_API_VERSION) {
    p.error('apiVersion', `must be ${SCENARIO_API_VERSION}, got ${show(raw.apiVersion)}`);
  }
  if (raw.kind !== 'Scenario') p.error('kind', `must be Scenario, got ${show(raw.kind)}`);
  expectString(p, 'metadata.name', meta.name, true);
  const spec = expectObject(p, 'spec', raw.spec, true) ?? {};
  const nodeReadyAfter =
    readDuration(p, 'spec.nodeReadyAfter', spec.nodeReadyAfter, DEFAULT_NODE_READY_AFTER) ?? 45_000;
  const sweepEvery = readDuration(p, 'spec.sweepEvery', spec.sweepEvery, DEFAULT_SWEEP_EVERY) ?? 60_000;
  if (sweepEvery <= 0) p.error('spec.sweepEvery', 'must be longer than 0s');
  const until = readDuration(p, 'spec.until', spec.until) ?? 0;
  if (until <= 0 && spec.until !== undefined) p.error('spec.until', 'must be longer than 0s');
  for (const k of Object.keys(spec)) {
    if (!['nodeReadyAfter', 'sweepEvery', 'until', 'settings', 'steps'].includes(k)) {
      p.error(`spec.${k}`, 'unknown field');
    }
  }
  const settings = parseDisruptionSettings(spec.settings, 'spec.settings', (at, message) => p.error(at, message));

  const steps: ScenarioStep[] = [];
  const warnings: string[] = [];
  const rawSteps = expectArray(p, 'spec.steps', spec.steps, true) ?? [];
  for (const [i, rawStep] of rawSteps.entries()) {
    const step = await parseStep(p, `spec.steps[${i}]`, rawStep, spec.until, until, file, readManifests, warnings);
    if (step) steps.push(step);
  }
  checkScenarioSize(p, { until, sweepEvery, steps, stepCount: rawSteps.length });
  if (p.errors.length > 0) throw new ValidationError(p.errors);
  steps.sort((a, b) => a.at - b.at);
  return {
    file,
    name,
    nodeReadyAfter,
    sweepEvery,
    until,
    ...(spec.settings !== undefined ? { settings } : {}),
    steps,
    warnings: [...p.warnings, ...warnings],
  };
}

/** A duration field as milliseconds; `fallback` stands for an absent value, and a field with neither is required. */
function readDuration(p: Problems, path: string, value: unknown, fallback?: string): number | undefined {
  const text = expectDuration(p, path, value ?? fallback, false);
  if (text === undefined) {
    if (value === undefined && fallback === undefined) p.error(path, 'required');
    return undefined;
  }
  return parseDuration(text);
}

/** One step of `spec.steps`: its time, its period, and its one action. */
async function parseStep(
  p: Problems,
  path: string,
  rawStep: unknown,
  /** `spec.until` as written, and in ms (0 when absent or invalid). */
  untilText: unknown,
  until: number,
  file: string,
  readManifests: (paths: string[]) => Promise<ManifestSet>,
  warnings: string[],
): Promise<ScenarioStep | undefined> {
  const step = expectObject(p, path, rawStep, true);
  if (!step) return undefined;
  for (const k of Object.keys(step)) if (!STEP_KEYS.has(k)) p.error(`${path}.${k}`, 'unknown field');
  const at = readDuration(p, `${path}.at`, step.at);
  const every = step.every === undefined ? undefined : readDuration(p, `${path}.every`, step.every);
  if (every !== undefined && every <= 0) p.error(`${path}.every`, 'must be longer than 0s');
  if (at !== undefined && until > 0 && at > until) p.error(`${path}.at`, `is after spec.until (${show(untilText)})`);
  const actions = ACTIONS.filter((a) => step[a] !== undefined || (a === 'apply' && step.manifests !== undefined));
  if (actions.length !== 1) {
    p.error(
      path,
      `needs exactly one of ${ACTIONS.join(', ')} (apply may be inline under manifests), got ${actions.length}`,
    );
    return undefined;
  }
  const action = await parseAction(
    p,
    path,
    actions[0] as (typeof ACTIONS)[number],
    step,
    file,
    readManifests,
    warnings,
  );
  return action && at !== undefined ? { at, ...(every ? { every } : {}), path, action } : undefined;
}

async function parseAction(
  p: Problems,
  path: string,
  kind: (typeof ACTIONS)[number],
  step: Obj,
  file: string,
  readManifests: (paths: string[]) => Promise<ManifestSet>,
  warnings: string[],
): Promise<StepAction | undefined> {
  switch (kind) {
    case 'apply':
      return parseApply(p, path, step, file, readManifests, warnings);
    case 'seed':
      return parseSeed(p, `${path}.seed`, step.seed, file, readManifests);
    case 'scale': {
      const o = expectObject(p, `${path}.scale`, step.scale, true);
      if (!o) return undefined;
      if (o.kind === 'NodePool') return parseNodePoolScale(p, `${path}.scale`, o);
      const target = parseTarget(p, `${path}.scale`, o, WORKLOAD_KINDS, true);
      const replicas = expectInt(p, `${path}.scale.replicas`, o.replicas, { min: 0, required: true });
      if (replicas !== undefined && replicas > DEFAULT_INPUT_LIMITS.maxPods) {
        p.error(`${path}.scale.replicas`, `${replicas} is more than the limit of ${DEFAULT_INPUT_LIMITS.maxPods} pods`);
        return undefined;
      }
      return target && replicas !== undefined ? { type: 'scale', target, replicas } : undefined;
    }
    case 'delete': {
      const list = Array.isArray(step.delete) ? step.delete : [step.delete];
      const targets: ObjectTarget<DeletableKind>[] = [];
      list.forEach((item, j) => {
        const at = Array.isArray(step.delete) ? `${path}.delete[${j}]` : `${path}.delete`;
        const o = expectObject(p, at, item, true);
        const scoped = o && (CLUSTER_SCOPED_DELETABLE as readonly unknown[]).includes(o.kind);
        const t = o ? parseTarget(p, at, o, DELETABLE_KINDS, !scoped) : undefined;
        if (t) targets.push(t);
      });
      return targets.length === list.length ? { type: 'delete', targets } : undefined;
    }
    case 'patch': {
      const o = expectObject(p, `${path}.patch`, step.patch, true);
      if (!o) return undefined;
      const target = parseTarget(p, `${path}.patch`, o, PATCHABLE_KINDS, false);
      const mergePatch = expectObject(p, `${path}.patch.mergePatch`, o.mergePatch, true);
      return target && mergePatch ? { type: 'patch', target, mergePatch } : undefined;
    }
    case 'interrupt':
      return parseInterrupt(p, `${path}.interrupt`, step.interrupt);
    case 'capacityReservation':
      return parseReservationStep(p, `${path}.capacityReservation`, step.capacityReservation);
    default:
      if ((CLOUD_STEPS as readonly string[]).includes(kind)) {
        return parseCloudStep(p, `${path}.${kind}`, kind as CloudStepName, step[kind]);
      }
      return parseObjectStep(p, `${path}.${kind}`, kind as ObjectStepName, step[kind]);
  }
}

async function parseApply(
  p: Problems,
  path: string,
  step: Obj,
  file: string,
  readManifests: (paths: string[]) => Promise<ManifestSet>,
  warnings: string[],
): Promise<StepAction | undefined> {
  const sources: string[] = [];
  const sets: ManifestSet[] = [];
  if (step.apply !== undefined) {
    const paths = typeof step.apply === 'string' ? [step.apply] : expectArray(p, `${path}.apply`, step.apply, true);
    const names: string[] = [];
    paths?.forEach((v, j) => {
      const name = expectString(p, `${path}.apply[${j}]`, v, true);
      if (name) names.push(name);
    });
    if (names.length > 0) {
      try {
        sets.push(await readManifests(names));
        sources.push(...names);
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        for (const problem of err.problems) p.error(`${path}.apply`, problem);
      }
    }
  }
  if (step.manifests !== undefined) {
    const items = expectArray(p, `${path}.manifests`, step.manifests, true) ?? [];
    const docs: SourceDocument[] = [];
    items.forEach((item, j) => {
      if (isObj(item)) docs.push({ file: `${file} ${path}.manifests`, doc: j + 1, raw: item });
      else p.error(`${path}.manifests[${j}]`, 'must be a Kubernetes object (a map with apiVersion and kind)');
    });
    const errors: string[] = [];
    const { set } = buildManifestSet(docs, errors);
    p.errors.push(...errors);
    sets.push(set);
    sources.push(`${path}.manifests`);
  }
  if (sets.length === 0) return undefined;
  const merged = mergeSets(sets);
  warnings.push(...merged.warnings);
  return { type: 'apply', set: merged, sources };
}

/** `seed:` is a list of manifest files (relative to the scenario) and inline Nodes and Pods. */
async function parseSeed(
  p: Problems,
  path: string,
  v: unknown,
  file: string,
  readManifests: (paths: string[]) => Promise<ManifestSet>,
): Promise<StepAction | undefined> {
  const items = expectArray(p, path, v, true) ?? [];
  const files = items.filter((x): x is string => typeof x === 'string');
  const docs: SourceDocument[] = [];
  items.forEach((item, j) => {
    if (isObj(item)) docs.push({ file: `${file} ${path}`, doc: j + 1, raw: item });
    else if (typeof item !== 'string') p.error(`${path}[${j}]`, 'must be a manifest file or a Node or Pod object');
  });
  const sets: ManifestSet[] = [];
  if (files.length > 0) {
    try {
      sets.push(await readManifests(files));
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      for (const problem of err.problems) p.error(path, problem);
    }
  }
  const errors: string[] = [];
  if (docs.length > 0) sets.push(buildManifestSet(docs, errors).set);
  p.errors.push(...errors);
  if (sets.length === 0) return undefined;
  return checkSeed(p, path, mergeSets(sets), [...files, ...(docs.length ? [path] : [])]);
}

function mergeSets(sets: ManifestSet[]): ManifestSet {
  const [first, ...rest] = sets;
  if (!first) throw new Error('apply step without manifests');
  const out = { ...first } as unknown as Record<string, unknown[]>;
  for (const s of rest) {
    for (const [k, v] of Object.entries(s)) out[k] = [...(out[k] ?? []), ...(v as unknown[])];
  }
  return out as unknown as ManifestSet;
}

function parseTarget<K extends string>(
  p: Problems,
  path: string,
  o: Obj,
  kinds: readonly K[],
  namespaced: boolean,
): ObjectTarget<K> | undefined {
  const kind = expectEnum(p, `${path}.kind`, o.kind, kinds, true);
  const name = expectString(p, `${path}.name`, o.name, true);
  const namespace = namespaced ? (expectString(p, `${path}.namespace`, o.namespace) ?? 'default') : '';
  if (!namespaced && o.namespace !== undefined) p.error(`${path}.namespace`, `${String(o.kind)} is not namespaced`);
  return kind && name ? { kind, namespace, name } : undefined;
}

/** `scale: { kind: NodePool, name, replicas }`: a static NodePool's replicas, as `kubectl scale nodepool` sets them. */
function parseNodePoolScale(p: Problems, path: string, o: Obj): StepAction | undefined {
  const target = parseTarget(p, path, o, ['NodePool'] as const, false);
  const replicas = expectInt(p, `${path}.replicas`, o.replicas, { min: 0, required: true });
  if (replicas !== undefined && replicas > DEFAULT_INPUT_LIMITS.maxPods) {
    p.error(`${path}.replicas`, `${replicas} is more than the limit of ${DEFAULT_INPUT_LIMITS.maxPods} nodes`);
    return undefined;
  }
  return target && replicas !== undefined ? { type: 'scaleNodePool', name: target.name, replicas } : undefined;
}

function parseInterrupt(p: Problems, path: string, v: unknown): StepAction | undefined {
  const o = expectObject(p, path, v, true);
  if (!o) return undefined;
  for (const k of Object.keys(o)) {
    if (!['nodeClaim', 'instanceType', 'zone', 'capacityType'].includes(k)) p.error(`${path}.${k}`, 'unknown field');
  }
  const nodeClaim = expectString(p, `${path}.nodeClaim`, o.nodeClaim);
  const instanceType = expectString(p, `${path}.instanceType`, o.instanceType);
  const zone = expectString(p, `${path}.zone`, o.zone);
  const capacityType = expectEnum(p, `${path}.capacityType`, o.capacityType, ['spot', 'on-demand'] as const);
  if (nodeClaim !== undefined && (instanceType || zone || capacityType)) {
    p.error(path, 'give either nodeClaim or an offering (instanceType, zone, capacityType), not both');
    return undefined;
  }
  if (nodeClaim === undefined && !instanceType) {
    p.error(path, 'needs nodeClaim, or instanceType (with optional zone and capacityType: spot)');
    return undefined;
  }
  return {
    type: 'interrupt',
    ...(nodeClaim ? { nodeClaim } : {}),
    ...(instanceType ? { instanceType } : {}),
    ...(zone ? { zone } : {}),
    ...(capacityType ? { capacityType } : {}),
  };
}

export type { PatchableKind, WorkloadKind };
