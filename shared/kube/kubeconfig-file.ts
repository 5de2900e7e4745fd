// A kubeconfig file as the CLI's cluster input: client-node loads it (clusters, contexts, users, exec plugins such
// as `aws eks get-token`), and every problem names the file and the context, so the fix is obvious.
import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { ValidationError } from '../errors';

export interface KubeconfigTarget {
  kc: KubeConfig;
  /** The context used: the one asked for, or the file's current-context. */
  context: string;
  /** The API server URL of that context's cluster. */
  server: string;
  /** `kubeconfig PATH, context NAME`, the prefix of every message about this cluster. */
  label: string;
}

/** Loads the file and selects the context; throws ValidationError naming the file (and the context) otherwise. */
export function loadKubeconfigFile(path: string, context?: string): KubeconfigTarget {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as { code?: string }).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a folder, not a file' : String(err);
    throw new ValidationError([`--kubeconfig ${path}: cannot read: ${why}`]);
  }
  const kc = new KubeConfig();
  try {
    kc.loadFromString(text);
  } catch (err) {
    throw new ValidationError([`--kubeconfig ${path}: not a kubeconfig: ${(err as Error).message}`]);
  }
  const names = kc.getContexts().map((c) => c.name);
  const chosen = context ?? kc.getCurrentContext();
  if (!chosen) {
    throw new ValidationError([
      `--kubeconfig ${path}: no current-context; name one with --context (its contexts: ${names.join(', ') || 'none'})`,
    ]);
  }
  if (!kc.getContextObject(chosen)) {
    const flag = context === undefined ? 'current-context' : '--context';
    throw new ValidationError([
      `--kubeconfig ${path}: ${flag} "${chosen}" is not a context of this file (its contexts: ${names.join(', ') || 'none'})`,
    ]);
  }
  // As kubectl: a plain-http server (`kubectl proxy`) has no TLS to verify, which client-node only accepts with
  // skipTLSVerify; https servers keep verifying against their CA.
  kc.loadFromOptions({
    clusters: kc.clusters.map((c) => (c.server.startsWith('http://') ? { ...c, skipTLSVerify: true } : c)),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: chosen,
  });
  const label = `kubeconfig ${path}, context ${chosen}`;
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new ValidationError([`${label}: the context's cluster has no server URL`]);
  return { kc, context: chosen, server, label };
}
