// Which packages the Lambda bundles replace with the shims in this folder, and why.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SHIM_DIR = dirname(fileURLToPath(import.meta.url));

/**
 * Packages the Lambda bundles replace with the shims in this folder. Most are ones @kubernetes/client-node imports for
 * features the functions never use (each shim throws a clear "not supported in the Karpless Lambda bundle" error if
 * ever reached); the AWS SDK's credential chain is cut to the link Lambda uses.
 * The functions build their KubeConfig from options (endpoint, CA, an EKS token from their IAM role), make only REST
 * calls, and connect without a proxy, so none of these paths runs in Lambda. Together they were ~520 KiB minified,
 * whatwg-url with its tr46 Unicode tables alone ~280 KiB. Tests and the CLI run the real packages.
 */
export const LAMBDA_SHIMS: Readonly<Record<string, string>> = {
  // node-fetch v2 uses it only where Node's URL is missing; the shim re-exports Node's URL.
  'whatwg-url': 'whatwg-url.ts',
  // OIDC, Azure and GCP kubeconfig auth providers.
  'openid-client': 'openid-client.ts',
  'jsonpath-plus': 'jsonpath-plus.ts',
  // Kubeconfig YAML parsing (loadFromFile/loadFromString); the functions use loadFromOptions.
  'js-yaml': 'js-yaml.ts',
  // Kubeconfig proxy-url support.
  'socks-proxy-agent': 'proxy-agents.ts',
  hpagent: 'proxy-agents.ts',
  // exec/attach/port-forward (WebSockets) and cp (tar).
  'isomorphic-ws': 'streaming.ts',
  'tar-fs': 'tar-fs.ts',
  // The AWS SDK's default credential chain; in Lambda the role's credentials are in the environment.
  '@aws-sdk/credential-provider-node': 'aws-credentials.ts',
  // Web streams, which @middy/core imports for streamed responses only: the stand-in loads them on first use.
  'node:stream/web': 'stream-web.ts',
  // Node's http and https, as CommonJS: on Node 22 an ES import of either loads undici and compiles WebAssembly.
  http: 'http.cjs',
  'node:http': 'http.cjs',
  https: 'https.cjs',
  'node:https': 'https.cjs',
};

/** Node modules only client-node's prebuild (stacks/client-node-prebuild.ts) replaces: its command-running auth. */
export const CLIENT_NODE_SHIMS: Readonly<Record<string, string>> = {
  'node:child_process': 'child-process.ts',
  child_process: 'child-process.ts',
};

const aliases = (shims: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(shims).map(([pkg, file]) => [pkg, join(SHIM_DIR, file)]));

/** LAMBDA_SHIMS as esbuild aliases (package → absolute shim path). */
export function shimAliases(): Record<string, string> {
  return aliases(LAMBDA_SHIMS);
}

/** LAMBDA_SHIMS and CLIENT_NODE_SHIMS as esbuild aliases, for client-node's prebuild. */
export function clientNodeShimAliases(): Record<string, string> {
  return { ...aliases(LAMBDA_SHIMS), ...aliases(CLIENT_NODE_SHIMS) };
}
