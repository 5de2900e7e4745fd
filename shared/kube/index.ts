export { DISRUPTED_TAINT, KubeClusterApi, type KubeClusterApiOptions } from './cluster-api';
export { classifyKubeError, type KubeAction } from './errors';
export { isDaemonSetOwned, isProvisionable, isUnschedulable, PENDING_POD_FIELD_SELECTOR } from './pending';
