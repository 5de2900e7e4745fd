// A cluster dump served by the fake Kubernetes API server (test/fake-kube-api), with a kubeconfig file pointing at
// it: the live-cluster twin of a `kubectl get -o yaml` dump, for tests of `--kubeconfig` inputs.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { readSourceDocuments } from '../shared/api';
import { type ListedKind, MIGRATE_CHECK_KINDS, SIMULATE_KINDS } from '../shared/kube';
import { FakeKubeApi } from '../test/fake-kube-api/server';

export interface DumpCluster {
  api: FakeKubeApi;
  /** A kubeconfig whose current-context `dump` points at the server; `down` points at a port nothing listens on. */
  kubeconfig: string;
  stop(): Promise<void>;
}

const LISTED: readonly ListedKind[] = [...SIMULATE_KINDS, ...MIGRATE_CHECK_KINDS];

/** Serves every object of the files under its REST resource; a kind no `--kubeconfig` reader lists is an error. */
export async function serveDump(files: string[], closedPort: number): Promise<DumpCluster> {
  const api = new FakeKubeApi();
  for (const d of await readSourceDocuments(files)) {
    const { apiVersion, kind, ...object } = d.raw;
    const listed = LISTED.find(
      (k) => k.kind === kind && (k.group ? `${k.group}/${k.version}` : k.version) === apiVersion,
    );
    if (!listed)
      throw new Error(`${d.file}#${d.doc}: no --kubeconfig reader lists ${String(apiVersion)} ${String(kind)}`);
    // As the API server: list items carry neither apiVersion nor kind; the reader must add them back.
    api.put(listed.resource, object as { metadata: { name: string } });
  }
  const url = await api.start();
  const dir = mkdtempSync(join(tmpdir(), 'karpless-kubeconfig-'));
  const kubeconfig = join(dir, 'config');
  writeFileSync(kubeconfig, kubeconfigYaml(url, `http://127.0.0.1:${closedPort}`));
  return { api, kubeconfig, stop: () => api.stop() };
}

function kubeconfigYaml(server: string, downServer: string): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'dump',
    clusters: [
      { name: 'dump', cluster: { server } },
      { name: 'down', cluster: { server: downServer } },
    ],
    users: [{ name: 'reader', user: { token: 'read-only' } }],
    contexts: [
      { name: 'dump', context: { cluster: 'dump', user: 'reader' } },
      { name: 'down', context: { cluster: 'down', user: 'reader' } },
    ],
  });
}
