// client-node's OIDC auth provider (kubeconfig users with auth-provider: oidc).
import { unsupported } from './unsupported';

export function discovery(): never {
  return unsupported('OIDC kubeconfig authentication (openid-client)');
}
export function refreshTokenGrant(): never {
  return unsupported('OIDC kubeconfig authentication (openid-client)');
}
