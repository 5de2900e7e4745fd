// `karpless migrate --check`: reads a `kubectl get ... -o yaml` dump of a cluster that runs Karpenter and lists
// what would block moving NodePools to Karpless (docs/deploy.md, "Migrating from Karpenter"): CRDs that still name
// Karpenter's conversion webhook or store old versions, objects of older Karpenter APIs, NodeClaims and Nodes that
// carry Karpenter's termination finalizer in a pool being moved, NodePools and EC2NodeClasses Karpless cannot run,
// and pods and PDBs that would stop their nodes from draining. It reads raw objects, so a dump with status,
// managedFields and kinds Karpless never uses is fine.
import { buildManifestSet, refOf } from '../build';
import { isObj, type Obj } from '../check';
import type { SourceDocument } from '../documents';
import type { LabelSelector } from '../kube';
import { AnnotationDoNotDisrupt, FinalizerTermination, LabelNodeClaim, LabelNodePool } from '../labels';
import { inputLimits } from '../limits';
import { MANAGED_BY_KARPLESS, MANAGED_BY_LABEL } from '../nodeclaim-object';
import { describeDoc } from '../problems';
import { matchesLabelSelector } from '../selector';

export interface PreflightFinding {
  /** A blocker stops the cut-over until fixed; a note is worth knowing. */
  severity: 'blocker' | 'note';
  /** `file#doc Kind/name`, as every other message names an object. */
  object: string;
  message: string;
  /** What to run or change. */
  fix?: string;
}

/** A check the dump holds too little for: without it, "no blockers" would claim what was never looked at. */
export interface SkippedCheck {
  check: string;
  /** What the dump lacks, and how to add it. */
  needs: string;
}

/** Where a pool being moved stands, by whose machines it has: only Karpenter's (or none) is `to move`, both is
 * `moving`, only Karpless's is `moved`. Karpless's machines carry the same finalizer but block nothing. */
export type PoolState = 'to move' | 'moving' | 'moved';

export interface PoolProgress {
  nodePool: string;
  state: PoolState;
  karpenterMachines: number;
  karplessMachines: number;
}

export interface PreflightResult {
  /** The NodePools the check was about: those given, or every NodePool in the dump. */
  nodePools: string[];
  /** Pools given that the dump has no karpenter.sh/v1 NodePool of. */
  unknownNodePools: string[];
  /** Every karpenter.sh/v1 NodePool in the dump. */
  knownNodePools: string[];
  findings: PreflightFinding[];
  skipped: SkippedCheck[];
  /** One entry per known pool being moved, in name order. */
  pools: PoolProgress[];
}

export const KARPENTER_FINALIZER = FinalizerTermination;
const KARPENTER_GROUPS = new Set(['karpenter.sh', 'karpenter.k8s.aws']);
const V1ALPHA5_CRDS = new Set([
  'provisioners.karpenter.sh',
  'machines.karpenter.sh',
  'awsnodetemplates.karpenter.k8s.aws',
]);
const CONVERTED_BY_MIGRATE = new Set(['Provisioner', 'AWSNodeTemplate', 'NodePool', 'EC2NodeClass']);

/** Checks the dump; `nodePools` narrows it to the pools being moved now (one at a time, docs/deploy.md). */
export function migrationPreflight(docs: readonly SourceDocument[], nodePools?: readonly string[]): PreflightResult {
  const byKind = (kind: string): SourceDocument[] => docs.filter((d) => d.raw.kind === kind);
  const poolDocs = byKind('NodePool').filter((d) => d.raw.apiVersion === 'karpenter.sh/v1');
  const knownNodePools = poolDocs.map((d) => nameOf(d.raw)).sort();
  const moving = new Set(nodePools?.length ? nodePools : knownNodePools);
  const findings: PreflightFinding[] = [];
  for (const d of byKind('CustomResourceDefinition')) findings.push(...crdFindings(d));
  for (const d of docs) findings.push(...oldApiFindings(d));
  findings.push(...poolFindings(poolDocs, byKind('EC2NodeClass'), moving));
  const movingNodes = new Set<string>();
  const counts = new Map<string, { karpenter: number; karpless: number }>();
  for (const d of machines(byKind('NodeClaim'), byKind('Node'))) {
    const pool = labelsOf(d.raw)[LabelNodePool];
    if (pool === undefined || !moving.has(pool)) continue;
    const count = counts.get(pool) ?? { karpenter: 0, karpless: 0 };
    counts.set(pool, count);
    if (isKarpless(d.raw)) {
      count.karpless++;
      continue;
    }
    count.karpenter++;
    const nodeName = nodeNameOf(d.raw);
    if (nodeName) movingNodes.add(nodeName);
    findings.push(...finalizerFindings(d, pool));
  }
  findings.push(...drainFindings(byKind('Pod'), byKind('PodDisruptionBudget'), byKind('Node'), movingNodes));
  return {
    nodePools: [...moving].sort(),
    unknownNodePools: [...moving].filter((p) => !knownNodePools.includes(p)).sort(),
    knownNodePools,
    findings,
    skipped: skippedChecks(byKind),
    pools: [...moving]
      .filter((p) => knownNodePools.includes(p))
      .sort()
      .map((p) => progress(p, counts.get(p))),
  };
}

function progress(nodePool: string, count = { karpenter: 0, karpless: 0 }): PoolProgress {
  const state: PoolState = count.karpless === 0 ? 'to move' : count.karpenter === 0 ? 'moved' : 'moving';
  return { nodePool, state, karpenterMachines: count.karpenter, karplessMachines: count.karpless };
}

/** Karpless labels the Nodes it registers with their NodeClaim and the NodeClaim objects it mirrors as its own. */
function isKarpless(raw: Obj): boolean {
  const labels = labelsOf(raw);
  return raw.kind === 'Node' ? labels[LabelNodeClaim] !== undefined : labels[MANAGED_BY_LABEL] === MANAGED_BY_KARPLESS;
}

/** A NodeClaim and its Node are one machine: a Node is left out when a NodeClaim names it (by status.nodeName or
 * providerID), so each machine is reported once, under its NodeClaim. */
function machines(claims: readonly SourceDocument[], nodes: readonly SourceDocument[]): SourceDocument[] {
  const claimed = new Set(claims.flatMap((d) => [nodeNameOf(d.raw), providerIdOf(d.raw)].filter((v) => v)));
  return [...claims, ...nodes.filter((d) => !claimed.has(nameOf(d.raw)) && !claimed.has(providerIdOf(d.raw) ?? ''))];
}

const KARPENTER_CRDS = 'nodepools.karpenter.sh nodeclaims.karpenter.sh ec2nodeclasses.karpenter.k8s.aws';

/** The checks whose input the dump lacks. A cluster running Karpenter always has its CRDs, Nodes and Pods. */
function skippedChecks(byKind: (kind: string) => SourceDocument[]): SkippedCheck[] {
  const out: SkippedCheck[] = [];
  if (!byKind('CustomResourceDefinition').some((d) => KARPENTER_GROUPS.has(str(obj(d.raw.spec).group) ?? ''))) {
    out.push({
      check: "CRD versions and Karpenter's conversion webhook",
      needs: `no Karpenter CustomResourceDefinition in the dump; add kubectl get crd ${KARPENTER_CRDS} -o yaml`,
    });
  }
  if (byKind('Node').length === 0) {
    out.push({
      check: "Karpenter's nodes and their termination finalizer",
      needs: 'no Node in the dump; add kubectl get nodes,nodeclaims -o yaml',
    });
  }
  if (byKind('Pod').length === 0) {
    out.push({
      check: 'pods and PodDisruptionBudgets that would stop a drain',
      needs: 'no Pod in the dump; add kubectl get pods,pdb -A -o yaml',
    });
  }
  return out;
}

function crdFindings(d: SourceDocument): PreflightFinding[] {
  const spec = obj(d.raw.spec);
  const name = nameOf(d.raw);
  if (!KARPENTER_GROUPS.has(str(spec.group) ?? '')) return [];
  const object = describeDoc(refOf(d));
  if (V1ALPHA5_CRDS.has(name)) {
    return [
      {
        severity: 'note',
        object,
        message: 'a v1alpha5 CRD left from Karpenter before 0.32; Karpless reads none of its objects',
        fix: `delete it once none of its objects is left: kubectl delete crd ${name}`,
      },
    ];
  }
  const out: PreflightFinding[] = [];
  const versions = (Array.isArray(spec.versions) ? spec.versions : []).filter(isObj);
  if (!versions.some((v) => v.name === 'v1' && v.served === true)) {
    out.push({
      severity: 'blocker',
      object,
      message: `serves no v1 (${versions.map((v) => v.name).join(', ') || 'no versions'}); Karpless reads only ${str(spec.group)}/v1`,
      fix: 'upgrade Karpenter to 1.0 or later first (its upgrade guide), or convert the objects with karpless migrate',
    });
  }
  const stored = (Array.isArray(obj(d.raw.status).storedVersions) ? obj(d.raw.status).storedVersions : []) as unknown[];
  const old = stored.filter((v) => v !== 'v1');
  if (old.length > 0) {
    out.push({
      severity: 'blocker',
      object,
      message: `status.storedVersions still lists ${old.join(', ')}: objects may be stored in a version only Karpenter's conversion webhook can read`,
      fix:
        `rewrite every object at v1 while Karpenter runs (kubectl get ${name} -o json | kubectl replace -f -), then ` +
        `kubectl patch crd ${name} --subresource=status --type=merge -p '{"status":{"storedVersions":["v1"]}}'`,
    });
  }
  const conversion = obj(spec.conversion);
  if (conversion.strategy === 'Webhook') {
    const service = obj(obj(obj(conversion.webhook).clientConfig).service);
    const target = service.name ? ` (service ${str(service.namespace) ?? 'default'}/${str(service.name)})` : '';
    out.push({
      severity: 'blocker',
      object,
      message:
        `spec.conversion names Karpenter's conversion webhook${target}: once Karpenter is uninstalled, every ` +
        'read of these objects fails, and Karpless with it',
      fix:
        `after storedVersions is [v1]: kubectl patch crd ${name} --type=merge ` +
        `-p '{"spec":{"conversion":{"strategy":"None","webhook":null}}}'`,
    });
  }
  return out;
}

function oldApiFindings(d: SourceDocument): PreflightFinding[] {
  const apiVersion = str(d.raw.apiVersion) ?? '';
  const kind = str(d.raw.kind) ?? '';
  const [group, version] = apiVersion.split('/');
  if (!KARPENTER_GROUPS.has(group ?? '') || version === 'v1' || kind === 'CustomResourceDefinition') return [];
  const object = describeDoc(refOf(d));
  if (CONVERTED_BY_MIGRATE.has(kind)) {
    return [
      {
        severity: 'blocker',
        object,
        message: `${apiVersion} ${kind}: Karpless reads karpenter.sh/v1 NodePools and karpenter.k8s.aws/v1 EC2NodeClasses`,
        fix: 'convert it with karpless migrate FILE > v1.yaml, review the warnings, and kubectl apply -f v1.yaml',
      },
    ];
  }
  return [
    {
      severity: 'blocker',
      object,
      message: `${apiVersion} ${kind}: an object of an older Karpenter API; its node belongs to that Karpenter`,
      fix: 'let Karpenter drain and delete it (kubectl delete) before it is upgraded or removed',
    },
  ];
}

/** Moved NodePools and their EC2NodeClasses, validated as Karpless validates them; unsupported features block. */
function poolFindings(
  pools: readonly SourceDocument[],
  classes: readonly SourceDocument[],
  moving: ReadonlySet<string>,
): PreflightFinding[] {
  const moved = pools.filter((d) => moving.has(nameOf(d.raw)));
  const refs = new Set(moved.map((d) => str(obj(obj(obj(obj(d.raw.spec).template).spec).nodeClassRef).name)));
  const used = classes.filter((d) => d.raw.apiVersion === 'karpenter.k8s.aws/v1' && refs.has(nameOf(d.raw)));
  const out: PreflightFinding[] = [];
  const objects = [...moved, ...used];
  // Status, managedFields and the like are what a dump carries; validation looks at what Karpless reads. The pools
  // and their classes are built together, as `kubectl apply` would see them.
  const slim = objects.map((d) => ({
    ...d,
    raw: { apiVersion: d.raw.apiVersion, kind: d.raw.kind, metadata: { name: nameOf(d.raw) }, spec: d.raw.spec },
  }));
  const errors: string[] = [];
  const { set } = buildManifestSet(slim, errors, inputLimits({ ignoreUnknownKinds: true }));
  const messages = [
    ...errors.map((m) => ({ m, severity: 'blocker' as const })),
    ...set.warnings.map(
      (m) => ({ m, severity: /not supported by Karpless|ignored/.test(m) ? 'blocker' : 'note' }) as const,
    ),
  ];
  for (const d of objects) {
    const object = describeDoc(refOf(d));
    for (const { m, severity } of messages) {
      if (m.startsWith(`${object}: `)) out.push({ severity, object, message: m.slice(object.length + 2) });
    }
  }
  return out;
}

function finalizerFindings(d: SourceDocument, pool: string): PreflightFinding[] {
  const finalizers = obj(d.raw.metadata).finalizers;
  if (!Array.isArray(finalizers) || !finalizers.includes(KARPENTER_FINALIZER)) return [];
  const kind = d.raw.kind === 'Node' ? 'node' : 'nodeclaim';
  const node = d.raw.kind === 'Node' ? undefined : nodeNameOf(d.raw);
  return [
    {
      severity: 'blocker',
      object: describeDoc(refOf(d)),
      message:
        `Karpenter's${node ? ` (node ${node})` : ''}, in NodePool ${pool} (being moved), with the ` +
        `${KARPENTER_FINALIZER} finalizer: only Karpenter's ` +
        'controller removes it, so with Karpenter gone a delete hangs',
      fix:
        `while Karpenter still runs: kubectl delete ${kind} ${nameOf(d.raw)} (Karpenter drains it, terminates the ` +
        'instance and removes the finalizer; Karpless places the evicted pods)',
    },
  ];
}

/** Pods that `kubectl drain` or Karpenter's termination would not move off the nodes of the pools being moved. */
function drainFindings(
  pods: readonly SourceDocument[],
  pdbs: readonly SourceDocument[],
  nodes: readonly SourceDocument[],
  movingNodes: ReadonlySet<string>,
): PreflightFinding[] {
  const out: PreflightFinding[] = [];
  for (const d of nodes) {
    if (!movingNodes.has(nameOf(d.raw)) || annotationsOf(d.raw)[AnnotationDoNotDisrupt] !== 'true') continue;
    // Voluntary disruption only: an explicit delete still drains the node.
    out.push({
      severity: 'note',
      object: describeDoc(refOf(d)),
      message: `annotated ${AnnotationDoNotDisrupt}: "true": Karpenter will not consolidate, expire or replace it for drift; delete it explicitly to move its pods`,
    });
  }
  const onMoving = pods.filter((d) => movingNodes.has(str(obj(d.raw.spec).nodeName) ?? '') && running(d.raw));
  for (const d of onMoving) {
    const value = annotationsOf(d.raw)[AnnotationDoNotDisrupt];
    if (value === undefined) continue;
    const node = str(obj(d.raw.spec).nodeName);
    out.push({
      severity: value === 'true' ? 'blocker' : 'note',
      object: describeDoc(refOf(d)),
      message:
        value === 'true'
          ? `on node ${node}, annotated ${AnnotationDoNotDisrupt}: "true": Karpenter's drain does not evict it (until the NodePool's terminationGracePeriod, if one is set), so deleting its node waits`
          : `on node ${node}, annotated ${AnnotationDoNotDisrupt}: "${value}": its node drains once that has passed`,
      ...(value === 'true'
        ? {
            fix: `kubectl annotate pod -n ${namespaceOf(d.raw)} ${nameOf(d.raw)} ${AnnotationDoNotDisrupt}- when it may move`,
          }
        : {}),
    });
  }
  for (const d of pdbs) {
    const blocked = blockedBy(d.raw);
    if (!blocked) continue;
    const selector = obj(d.raw.spec).selector;
    const ns = namespaceOf(d.raw);
    const hit = onMoving.filter(
      (p) =>
        namespaceOf(p.raw) === ns &&
        isObj(selector) &&
        matchesLabelSelector(labelsOf(p.raw), selector as LabelSelector),
    );
    if (hit.length === 0) continue;
    const nodesHit = [...new Set(hit.map((p) => str(obj(p.raw.spec).nodeName)))].sort();
    out.push({
      severity: 'blocker',
      object: describeDoc(refOf(d)),
      message: `${blocked}, and it covers ${hit.length} pod(s) on node(s) ${nodesHit.join(', ')} being moved: their drain would wait forever`,
      fix: 'scale the workload up or relax the budget (maxUnavailable at least 1) for the move',
    });
  }
  return out;
}

/** Why a PodDisruptionBudget allows no eviction now, or undefined. */
function blockedBy(raw: Obj): string | undefined {
  const status = obj(raw.status);
  if (typeof status.disruptionsAllowed === 'number' && status.disruptionsAllowed <= 0) {
    return 'it allows 0 disruptions (status.disruptionsAllowed)';
  }
  const spec = obj(raw.spec);
  if (spec.maxUnavailable === 0 || spec.maxUnavailable === '0%') return `maxUnavailable is ${spec.maxUnavailable}`;
  if (spec.minAvailable === '100%') return 'minAvailable is 100%';
  return undefined;
}

function running(raw: Obj): boolean {
  const phase = obj(raw.status).phase;
  return phase !== 'Succeeded' && phase !== 'Failed';
}

const obj = (v: unknown): Obj => (isObj(v) ? v : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const nameOf = (raw: Obj): string => str(obj(raw.metadata).name) ?? '<unnamed>';
const nodeNameOf = (raw: Obj): string | undefined =>
  raw.kind === 'Node' ? nameOf(raw) : str(obj(raw.status).nodeName);
const providerIdOf = (raw: Obj): string | undefined =>
  raw.kind === 'Node' ? str(obj(raw.spec).providerID) : str(obj(raw.status).providerID);
const namespaceOf = (raw: Obj): string => str(obj(raw.metadata).namespace) ?? 'default';
const stringMap = (v: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(obj(v)).filter((e): e is [string, string] => typeof e[1] === 'string'));
const labelsOf = (raw: Obj): Record<string, string> => stringMap(obj(raw.metadata).labels);
const annotationsOf = (raw: Obj): Record<string, string> => stringMap(obj(raw.metadata).annotations);
