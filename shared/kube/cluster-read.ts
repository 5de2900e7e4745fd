// Reads a live cluster's objects the way `kubectl get KINDS -A -o yaml` dumps them, so the CLI can take a cluster
// where it takes a dump (docs/simulate-dump.md, "A live cluster instead of a dump"). Only `list` calls (GET),
// page by page; each item gets the apiVersion and kind the API server leaves off list items, as kubectl adds them.
import type { KubeConfig } from '@kubernetes/client-node';
import { ClusterApiError } from '../errors';
import { classifyKubeError } from './errors';
import { listAllPages, type RawPage } from './paginate';
import { apiPath, KubeRest } from './rest';

/** One collection to list: its REST name and the apiVersion and kind its items carry. */
export interface ListedKind {
  group: string;
  version: string;
  /** The REST resource, e.g. poddisruptionbudgets. */
  resource: string;
  kind: string;
  /** A custom resource: a cluster without its CRD answers 404, and the kind is skipped with a note. */
  optional?: boolean;
}

const core = (resource: string, kind: string): ListedKind => ({ group: '', version: 'v1', resource, kind });
const crd = (group: string, version: string, resource: string, kind: string): ListedKind => ({
  group,
  version,
  resource,
  kind,
  optional: true,
});

const NODEPOOLS = crd('karpenter.sh', 'v1', 'nodepools', 'NodePool');
const EC2NODECLASSES = crd('karpenter.k8s.aws', 'v1', 'ec2nodeclasses', 'EC2NodeClass');
const NODECLAIMS = crd('karpenter.sh', 'v1', 'nodeclaims', 'NodeClaim');
const PDBS: ListedKind = {
  group: 'policy',
  version: 'v1',
  resource: 'poddisruptionbudgets',
  kind: 'PodDisruptionBudget',
};

/** What `simulate` plans on: the dump of docs/simulate-dump.md and the Karpenter objects. Workloads (Deployments,
 * Jobs, ...) are left out: their pods are in the cluster already, and expanding them would count them twice. */
export const SIMULATE_KINDS: readonly ListedKind[] = [
  NODEPOOLS,
  EC2NODECLASSES,
  crd('karpenter.sh', 'v1alpha1', 'nodeoverlays', 'NodeOverlay'),
  NODECLAIMS,
  core('nodes', 'Node'),
  core('pods', 'Pod'),
  { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet' },
  PDBS,
  core('persistentvolumeclaims', 'PersistentVolumeClaim'),
  core('persistentvolumes', 'PersistentVolume'),
  { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses', kind: 'StorageClass' },
  { group: 'storage.k8s.io', version: 'v1', resource: 'csinodes', kind: 'CSINode' },
  { group: 'node.k8s.io', version: 'v1', resource: 'runtimeclasses', kind: 'RuntimeClass' },
];

/** What `migrate --check` reads: the dump of docs/deploy.md ("Check first"), and the objects of older Karpenter
 * APIs where their CRDs are still installed. */
export const MIGRATE_CHECK_KINDS: readonly ListedKind[] = [
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
  },
  NODEPOOLS,
  EC2NODECLASSES,
  NODECLAIMS,
  crd('karpenter.sh', 'v1alpha5', 'provisioners', 'Provisioner'),
  crd('karpenter.sh', 'v1alpha5', 'machines', 'Machine'),
  crd('karpenter.k8s.aws', 'v1alpha1', 'awsnodetemplates', 'AWSNodeTemplate'),
  core('nodes', 'Node'),
  core('pods', 'Pod'),
  PDBS,
];

export interface ClusterReadOptions {
  /** Items per list call (the `limit` of each page). */
  pageSize?: number;
  timeoutMs?: number;
  /** One line per kind read, for people watching a large cluster. */
  onProgress?: (line: string) => void;
}

export type ClusterObject = Record<string, unknown>;

/**
 * Lists every kind across all namespaces. A custom kind the cluster does not serve is skipped with a note; any other
 * failure throws a ClusterApiError naming the list that failed.
 */
export async function readClusterObjects(
  kc: KubeConfig,
  kinds: readonly ListedKind[],
  o: ClusterReadOptions = {},
): Promise<ClusterObject[]> {
  const rest = new KubeRest(kc);
  const out: ClusterObject[] = [];
  for (const k of kinds) {
    const apiVersion = k.group ? `${k.group}/${k.version}` : k.version;
    let pages = 0;
    const started = Date.now();
    try {
      const items = await listAllPages(
        (token) => {
          pages++;
          return rest.request<RawPage>({
            method: 'GET',
            path: apiPath(k.group, k.version, k.resource),
            query: { limit: o.pageSize ?? 500, continue: token },
            timeoutMs: o.timeoutMs ?? 30_000,
          });
        },
        (item) => asListed(item, apiVersion, k.kind),
      );
      out.push(...items);
      const ms = Date.now() - started;
      o.onProgress?.(`listed ${items.length} ${k.resource} (${apiVersion}) in ${pages} page(s), ${ms} ms`);
    } catch (err) {
      const failure = classifyKubeError(err, { verb: 'list', resource: k.resource, group: k.group });
      if (k.optional && failure instanceof ClusterApiError && failure.status === 404) {
        o.onProgress?.(`skipped ${k.resource} (${apiVersion}): the cluster does not serve it (no such CRD version)`);
        continue;
      }
      throw failure;
    }
  }
  return out;
}

/** A list item as `kubectl get -o yaml` prints it: with apiVersion and kind, without managedFields. */
function asListed(item: unknown, apiVersion: string, kind: string): ClusterObject {
  const raw = (item ?? {}) as ClusterObject;
  const metadata = raw.metadata as ClusterObject | undefined;
  const { managedFields: _dropped, ...meta } = metadata ?? {};
  return { apiVersion, kind, ...raw, ...(metadata ? { metadata: meta } : {}) };
}
