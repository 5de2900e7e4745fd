// `--kubeconfig PATH [--context NAME]`: a live cluster as a command's input, read with list calls only and turned
// into the documents a `kubectl get -o yaml` dump of the same kinds would give (docs/simulate-dump.md, "A live
// cluster instead of a dump"). `-f` files may come on top, read after the cluster's objects.
import { buildManifestSet, type ManifestSet, readSourceDocuments } from '../../shared/api';
import type { SourceDocument } from '../../shared/api/documents';
import type { InputLimits } from '../../shared/api/limits';
import { ValidationError } from '../../shared/errors';
import {
  type ListedKind,
  loadKubeconfigFile,
  MIGRATE_CHECK_KINDS,
  readClusterObjects,
  SIMULATE_KINDS,
} from '../../shared/kube';
import type { CommandContext } from './index';

export interface ClusterInputOptions {
  kubeconfig?: string;
  context?: string;
}

/**
 * The cluster's objects of these kinds, in kind order, as source documents named `cluster:CONTEXT`. Progress goes to
 * stderr, one line per kind. A bad file or context is a ValidationError (exit 2); an unreachable or refusing API
 * server an Error naming the kubeconfig and context (exit 1).
 */
export async function readClusterDocuments(
  ctx: CommandContext,
  opts: ClusterInputOptions & { kubeconfig: string },
  kinds: readonly ListedKind[],
): Promise<SourceDocument[]> {
  const target = loadKubeconfigFile(opts.kubeconfig, opts.context);
  ctx.io.err(`reading ${kinds.length} kinds from ${target.server} (${target.label}), list calls only`);
  let objects: Record<string, unknown>[];
  try {
    objects = await readClusterObjects(target.kc, kinds, { onProgress: (line) => ctx.io.err(`  ${line}`) });
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    throw new Error(`${target.label}: cannot read the cluster at ${target.server}: ${err.message}`);
  }
  const file = `cluster:${target.context}`;
  return objects.map((raw, i) => ({ file, doc: i + 1, raw }));
}

/** What `simulate` plans on: the cluster's objects, then any `-f` files, built and validated as one input (the
 * same build as `loadManifests`, so a plan on a cluster is the plan on its dump). */
export async function loadClusterManifests(
  ctx: CommandContext,
  opts: ClusterInputOptions & { kubeconfig: string; file?: string[] },
  limits: InputLimits,
): Promise<ManifestSet> {
  const docs = await readClusterDocuments(ctx, opts, SIMULATE_KINDS);
  if (opts.file) docs.push(...(await readSourceDocuments(opts.file, limits, ctx.io.readStdin)));
  const errors: string[] = [];
  const { set } = buildManifestSet(docs, errors, limits);
  if (errors.length > 0) throw new ValidationError(errors);
  return set;
}

/** What `migrate --check` checks: the cluster's objects, then any files, as parsed (neither converted nor validated). */
export async function readClusterCheckDocuments(
  ctx: CommandContext,
  opts: ClusterInputOptions & { kubeconfig: string },
  paths: string[],
  limits: InputLimits,
): Promise<SourceDocument[]> {
  const docs = await readClusterDocuments(ctx, opts, MIGRATE_CHECK_KINDS);
  if (paths.length) docs.push(...(await readSourceDocuments(paths, limits, ctx.io.readStdin)));
  return docs;
}
