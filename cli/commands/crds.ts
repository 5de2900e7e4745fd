// `karpless crds`: prints Karpless's CRDs for NodePool (karpenter.sh/v1) and EC2NodeClass (karpenter.k8s.aws/v1).
// Clusters that already run Karpenter keep their own CRDs; these are for clusters that never had Karpenter.
import { crdsYaml } from '../../shared/api/crds';
import { EXIT_OK } from '../io';
import type { CommandContext } from './index';

export function runCrds(ctx: CommandContext): void {
  ctx.io.out(crdsYaml());
  ctx.result.code = EXIT_OK;
}
