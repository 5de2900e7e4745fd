// A @kubernetes/client-node KubeConfig whose bearer token comes from the EKS token provider on every request, so a
// long-lived client (a warm Lambda, the CLI) never sends an expired token.
import type https from 'node:https';
import { KubeConfig, type User } from '@kubernetes/client-node';

/** client-node does not export its Authenticator interface; take it from the method that accepts one. */
type Authenticator = Parameters<KubeConfig['addAuthenticator']>[0];

export interface TokenSource {
  getToken(): Promise<string>;
}

const AUTH_PROVIDER = 'karpless-eks';

class EksAuthenticator implements Authenticator {
  constructor(private readonly tokens: TokenSource) {}
  isAuthProvider(user: User): boolean {
    return user.authProvider?.name === AUTH_PROVIDER;
  }
  async applyAuthentication(_user: User, opts: https.RequestOptions): Promise<void> {
    opts.headers = { ...opts.headers, Authorization: `Bearer ${await this.tokens.getToken()}` };
  }
}

export interface KubeConfigOptions {
  cluster: string;
  endpoint: string;
  /** Base64 PEM; omitted only for plain-http test servers. */
  caData?: string;
  tokens: TokenSource;
}

export function buildKubeConfig(options: KubeConfigOptions): KubeConfig {
  const kc = new KubeConfig();
  // client-node refuses plain http unless skipTLSVerify is set; there is no TLS to verify on http (local test
  // servers), and https endpoints always verify against the CA.
  const plainHttp = options.endpoint.startsWith('http://');
  kc.loadFromOptions({
    clusters: [{ name: options.cluster, server: options.endpoint, caData: options.caData, skipTLSVerify: plainHttp }],
    users: [{ name: 'karpless', authProvider: { name: AUTH_PROVIDER, config: {} } }],
    contexts: [{ name: options.cluster, cluster: options.cluster, user: 'karpless' }],
    currentContext: options.cluster,
  });
  kc.addAuthenticator(new EksAuthenticator(options.tokens));
  return kc;
}
