// `karpless migrate FILE|DIR...`: converts Karpenter v1alpha5 Provisioners and v1alpha1 AWSNodeTemplates to v1
// NodePools and EC2NodeClasses. The converted manifests (every document, in input order) go to stdout, ready for
// `kubectl apply -f -`; what changed meaning goes to stderr. Invalid input prints nothing on stdout.
import { stringify } from 'yaml';
import { loadDocuments } from '../../shared/api';
import { inputLimits } from '../../shared/api/limits';
import { ValidationError } from '../../shared/errors';
import { EXIT_OK, EXIT_USAGE } from '../io';
import type { CommandContext } from './index';

export async function runMigrate(ctx: CommandContext, paths: string[]): Promise<void> {
  let result: Awaited<ReturnType<typeof loadDocuments>>;
  try {
    // A converter passes the kinds it does not convert through unchanged (a ConfigMap beside a Provisioner), so unknown
    // kinds are warnings here, not the errors they are for simulate.
    result = await loadDocuments(paths, inputLimits({ ignoreUnknownKinds: true }), ctx.io.readStdin);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    ctx.io.err(err.message);
    ctx.result.code = EXIT_USAGE;
    return;
  }
  const yaml = result.documents.map((d) => stringify(d.raw, { lineWidth: 0 })).join('---\n');
  for (const w of result.set.warnings) ctx.io.err(`warning: ${w}`);
  if (yaml) ctx.io.out(yaml);
  ctx.result.code = EXIT_OK;
}
