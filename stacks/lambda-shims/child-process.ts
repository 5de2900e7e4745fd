// client-node's exec credential plugins, its GCP and Azure auth providers and its WSL kubeconfig lookup run commands
// with node:child_process; the functions use none of them, and loading the module (with net and dgram behind it) cost
// every cold start ~11 M instructions (docs/performance.md, "Lambda bundles"). Only client-node's prebuild gets this.
import { unsupported } from './unsupported';

const notInLambda = (): never => unsupported('Running a command for Kubernetes credentials (child_process)');

export const spawn = notInLambda;
export const spawnSync = notInLambda;
export const execSync = notInLambda;
export default { spawn, spawnSync, execSync };
