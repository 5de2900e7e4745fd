export { DISRUPTED_TAINT, KubeClusterApi, type KubeClusterApiOptions } from './cluster-api';
export { classifyKubeError, type KubeAction } from './errors';
export { trimPod } from './trim';
