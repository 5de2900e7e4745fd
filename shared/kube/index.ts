export { DISRUPTED_TAINT, KubeClusterApi, type KubeClusterApiOptions } from './cluster-api';
export {
  type ClusterObject,
  type ListedKind,
  MIGRATE_CHECK_KINDS,
  readClusterObjects,
  SIMULATE_KINDS,
} from './cluster-read';
export { classifyKubeError, type KubeAction } from './errors';
export { type KubeconfigTarget, loadKubeconfigFile } from './kubeconfig-file';
export { trimPod } from './trim';
