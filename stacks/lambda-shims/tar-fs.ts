// client-node's cp (copy files to and from a container); the functions never call it.
import { unsupported } from './unsupported';

export function pack(): never {
  return unsupported('Kubernetes cp (tar-fs)');
}
export function extract(): never {
  return unsupported('Kubernetes cp (tar-fs)');
}
export default { pack, extract };
