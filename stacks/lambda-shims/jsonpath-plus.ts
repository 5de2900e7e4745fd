// Used only by client-node's Azure and GCP auth providers to read tokens out of a CLI's output.
import { unsupported } from './unsupported';

export function JSONPath(): never {
  return unsupported('Azure/GCP kubeconfig authentication (jsonpath-plus)');
}
