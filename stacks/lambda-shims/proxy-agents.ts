// client-node's kubeconfig proxy-url support (SOCKS and HTTP(S) proxies); the functions connect to EKS directly.
import { unsupported } from './unsupported';

export class SocksProxyAgent {
  constructor() {
    unsupported('A SOCKS proxy-url in the kubeconfig (socks-proxy-agent)');
  }
}
export class HttpProxyAgent {
  constructor() {
    unsupported('An HTTP proxy-url in the kubeconfig (hpagent)');
  }
}
export class HttpsProxyAgent {
  constructor() {
    unsupported('An HTTPS proxy-url in the kubeconfig (hpagent)');
  }
}
