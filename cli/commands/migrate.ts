// `karpless migrate FILE|DIR...`: converts Karpenter v1alpha5 Provisioners and v1alpha1 AWSNodeTemplates to v1
// NodePools and EC2NodeClasses. The converted manifests (every document, in input order) go to stdout, ready for
// `kubectl apply -f -`; what changed meaning goes to stderr. Invalid input prints nothing on stdout.
// `karpless migrate --check DUMP`: the cut-over preflight (shared/api/convert/preflight.ts) on a cluster dump.
import { stringify } from 'yaml';
import { loadDocuments, readSourceDocuments } from '../../shared/api';
import { migrationPreflight, type PreflightFinding } from '../../shared/api/convert/preflight';
import { inputLimits } from '../../shared/api/limits';
import { ValidationError } from '../../shared/errors';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../io';
import type { ClusterInputOptions } from './cluster-input';
import type { CommandContext } from './index';

export interface MigrateOptions extends ClusterInputOptions {
  file?: string[];
  check?: boolean;
  nodepool?: string[];
  output?: string;
}

export async function runMigrate(ctx: CommandContext, paths: string[], opts: MigrateOptions = {}): Promise<void> {
  if (opts.nodepool && !opts.check) {
    ctx.io.err('--nodepool needs --check');
    ctx.result.code = EXIT_USAGE;
    return;
  }
  if (opts.output !== undefined && (!opts.check || !['text', 'json'].includes(opts.output))) {
    ctx.io.err(opts.check ? `--output: "${opts.output}" is not text or json` : '--output needs --check');
    ctx.result.code = EXIT_USAGE;
    return;
  }
  if ((opts.kubeconfig || opts.context) && (!opts.check || !opts.kubeconfig)) {
    ctx.io.err(opts.kubeconfig ? '--kubeconfig needs --check' : '--context needs --check --kubeconfig PATH');
    ctx.result.code = EXIT_USAGE;
    return;
  }
  if (opts.check) return runCheck(ctx, paths, opts);
  // A converter passes the kinds it does not convert through unchanged (a ConfigMap beside a Provisioner), so unknown
  // kinds are warnings here, not the errors they are for simulate.
  const result = await readInput(ctx, () =>
    loadDocuments(paths, inputLimits({ ignoreUnknownKinds: true }), ctx.io.readStdin, (line) => ctx.io.err(line)),
  );
  if (!result) return;
  const yaml = result.documents.map((d) => stringify(d.raw, { lineWidth: 0 })).join('---\n');
  for (const w of result.set.warnings) ctx.io.err(`warning: ${w}`);
  if (yaml) ctx.io.out(yaml);
  ctx.result.code = EXIT_OK;
}

/** Reads the input; invalid input is a usage error, reported on stderr with undefined returned. */
async function readInput<T>(ctx: CommandContext, read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    ctx.io.err(err.message);
    ctx.result.code = EXIT_USAGE;
    return undefined;
  }
}

async function runCheck(ctx: CommandContext, paths: string[], opts: MigrateOptions): Promise<void> {
  const nodePools = opts.nodepool;
  const json = opts.output === 'json';
  const limits = inputLimits({ ignoreUnknownKinds: true });
  const { kubeconfig } = opts;
  const docs = await readInput(ctx, async () =>
    kubeconfig
      ? (await import('./cluster-input')).readClusterCheckDocuments(ctx, { ...opts, kubeconfig }, paths, limits)
      : readSourceDocuments(paths, limits, ctx.io.readStdin, (line) => ctx.io.err(line)),
  );
  if (!docs) return;
  const result = migrationPreflight(docs, nodePools);
  if (result.unknownNodePools.length) {
    const known = result.knownNodePools.length ? result.knownNodePools.join(', ') : 'none';
    ctx.io.err(`--nodepool: no NodePool ${result.unknownNodePools.join(', ')} in the dump (its NodePools: ${known})`);
    ctx.result.code = EXIT_USAGE;
    return;
  }
  const blockers = result.findings.filter((f) => f.severity === 'blocker');
  const notes = result.findings.filter((f) => f.severity === 'note');
  const ready = blockers.length === 0 && result.skipped.length === 0;
  ctx.result.code = ready ? EXIT_OK : EXIT_FAILURE;
  if (json) {
    const report = {
      nodePools: result.nodePools,
      objects: docs.length,
      ready,
      blockers,
      notes,
      skipped: result.skipped,
    };
    ctx.io.out(JSON.stringify(report, null, 2));
    return;
  }
  const pools = result.nodePools.length
    ? `NodePool(s) ${result.nodePools.join(', ')}`
    : 'no NodePool (none in the dump)';
  const out = [`Cut-over preflight for ${pools}: ${docs.length} object(s) read.`];
  for (const p of result.pools) {
    out.push(
      `  ${p.nodePool}: ${p.state} (${p.karpenterMachines} Karpenter, ${p.karplessMachines} Karpless machine(s))`,
    );
  }
  if (blockers.length) out.push('', `Blockers (${blockers.length}):`, ...blockers.flatMap(line));
  if (notes.length) out.push('', `Notes (${notes.length}):`, ...notes.flatMap(line));
  if (result.skipped.length) {
    out.push(
      '',
      `Not checked (${result.skipped.length}):`,
      ...result.skipped.flatMap((c) => [`  ${c.check}: ${c.needs}`]),
    );
  }
  out.push('', verdict(blockers.length, result.skipped.length));
  ctx.io.out(out.join('\n'));
}

function verdict(blockers: number, skipped: number): string {
  if (blockers)
    return `${blockers} blocker(s): fix them before the cut-over (docs/deploy.md, "Migrating from Karpenter").`;
  if (skipped)
    return `No blockers found, but ${skipped} check(s) could not run: add what they need to the dump and check again.`;
  return 'No blockers: ready to cut over.';
}

function line(f: PreflightFinding): string[] {
  return [`  ${f.object}: ${f.message}`, ...(f.fix ? [`    fix: ${f.fix}`] : [])];
}
