// `karpless crds`: prints Karpless's CRDs for NodePool (karpenter.sh/v1) and EC2NodeClass (karpenter.k8s.aws/v1).
// Clusters that already run Karpenter keep their own CRDs; these are for clusters that never had Karpenter.
import type { Command } from 'commander';
import { crdsYaml } from '../../shared/api/crds';
import { EXIT_OK } from '../io';
import type { CommandContext, RegisterCommand } from './index';

export const registerCrds: RegisterCommand = (program: Command, ctx: CommandContext) => {
  program
    .command('crds')
    .description('print the NodePool and EC2NodeClass CustomResourceDefinitions as YAML')
    .action(() => {
      ctx.io.out(crdsYaml());
      ctx.result.code = EXIT_OK;
    });
};
