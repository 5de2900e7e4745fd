// `--kubeconfig PATH` and `--context NAME`: a live cluster as the input of `simulate` and `migrate --check`, read with
// list calls only (docs/simulate-dump.md, "A live cluster instead of a dump").
import type { Command } from 'commander';

export function addKubeconfigOptions(cmd: Command): Command {
  return cmd
    .option('--kubeconfig <path>', 'read the objects from the cluster of this kubeconfig instead of a dump (list only)')
    .option('--context <name>', "with --kubeconfig: the context to use (default: the file's current-context)");
}
