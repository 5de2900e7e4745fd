// client-node parses kubeconfig YAML with js-yaml; the functions build their KubeConfig from options, never a file.
import { unsupported } from './unsupported';

export function load(): never {
  return unsupported('Loading a kubeconfig from YAML (js-yaml)');
}
export function loadAll(): never {
  return unsupported('Loading YAML (js-yaml)');
}
export function dump(): never {
  return unsupported('Writing YAML (js-yaml)');
}
export default { load, loadAll, dump };
