// `simulate --kubeconfig` and `migrate --check --kubeconfig` through the real command, against the fake Kubernetes
// API server serving the same objects as a dump file: the answers are the dump's, and only list calls were made.
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DumpCluster, serveDump } from '../../testkit/dump-cluster';
import type { SimulateReport } from '../format/simulate-report';
import { bufferIO } from '../io';
import { main } from '../main';

const ROOT = join(import.meta.dirname, '../..');
const DUMP = join(ROOT, 'test/fixtures/cluster-dump');
const CUTOVER = join(ROOT, 'shared/api/convert/testdata/cutover-blocked.yaml');

async function run(...argv: string[]) {
  const io = bufferIO();
  const code = await main(argv, io);
  return { code, stdout: io.stdout.join(''), stderr: io.stderr.join('') };
}

/** A port that was just free: nothing listens on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Where a report names its input (`file#doc`), which differs between a file and a cluster. */
const withoutSources = (text: string) => text.replace(/\S+#\d+ /g, '');

/**
 * The report with sources left out and lists of names sorted: the API server lists objects by namespace and name,
 * as `kubectl get` dumps them, while the fixture is in hand-written order, and the report keeps input order.
 */
function comparable(report: SimulateReport): unknown {
  return JSON.parse(withoutSources(JSON.stringify(report)), (_key, value: unknown) =>
    Array.isArray(value) && value.every((v) => typeof v === 'string') ? [...value].sort() : value,
  );
}

describe('simulate --kubeconfig', () => {
  let cluster: DumpCluster;
  beforeAll(async () => {
    cluster = await serveDump([DUMP], await closedPort());
  });
  afterAll(() => cluster.stop());

  it('plans on the cluster as on its dump, with list calls only and a progress line per kind', async () => {
    const fromDump = await run('simulate', '-f', DUMP, '-o', 'json');
    const fromCluster = await run('simulate', '--kubeconfig', cluster.kubeconfig, '-o', 'json');
    expect(fromCluster.code).toBe(0);
    const dumpPlan = JSON.parse(fromDump.stdout) as SimulateReport;
    const clusterPlan = JSON.parse(fromCluster.stdout) as SimulateReport;
    expect(clusterPlan.nodeClaims.map((c) => [c.instanceType, c.zone, c.pods])).toEqual([
      ['m5.xlarge', 'us-east-1a', ['shop/batch-1']],
    ]);
    expect(comparable(clusterPlan)).toEqual(comparable(dumpPlan));
    const requests = cluster.api.requests;
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((r) => r.method !== 'GET' || r.resource?.name || r.query.has('watch'))).toEqual([]);
    expect(requests.every((r) => r.query.get('limit') === '500')).toBe(true);
    expect(fromCluster.stderr).toContain(`(kubeconfig ${cluster.kubeconfig}, context dump), list calls only`);
    expect(fromCluster.stderr).toMatch(/listed 16 pods \(v1\) in 1 page\(s\)/);
    expect(fromCluster.stderr).toMatch(/listed 1 nodepools \(karpenter\.sh\/v1\) in 1 page\(s\)/);
  });

  it('names the kubeconfig and context of an unknown context or an unreachable server', async () => {
    const unknown = await run('simulate', '--kubeconfig', cluster.kubeconfig, '--context', 'prod');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      `--kubeconfig ${cluster.kubeconfig}: --context "prod" is not a context of this file (its contexts: dump, down)`,
    );
    const down = await run('simulate', '--kubeconfig', cluster.kubeconfig, '--context', 'down');
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(
      new RegExp(
        `kubeconfig ${cluster.kubeconfig}, context down: cannot read the cluster at http://127\\.0\\.0\\.1:\\d+: .*ECONNREFUSED`,
      ),
    );
    const missing = await run('simulate', '--kubeconfig', join(ROOT, 'no-such-kubeconfig'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no-such-kubeconfig: cannot read: no such file');
    const alone = await run('simulate', '--context', 'dump');
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--context needs --kubeconfig PATH');
  });
});

describe('migrate --check --kubeconfig', () => {
  let cluster: DumpCluster;
  beforeAll(async () => {
    cluster = await serveDump([CUTOVER], await closedPort());
  });
  afterAll(() => cluster.stop());

  it('checks the cluster as its dump, with list calls only', async () => {
    const fromDump = await run('migrate', '--check', CUTOVER);
    const fromCluster = await run('migrate', '--check', '--kubeconfig', cluster.kubeconfig);
    expect(fromDump.code).toBe(1);
    expect(fromCluster.code).toBe(1);
    expect(withoutSources(fromCluster.stdout)).toBe(withoutSources(fromDump.stdout));
    expect(cluster.api.requests.filter((r) => r.method !== 'GET' || r.resource?.name)).toEqual([]);
    expect(fromCluster.stderr).toMatch(/listed 1 provisioners \(karpenter\.sh\/v1alpha5\)/);
    const json = await run('migrate', '--check', '--kubeconfig', cluster.kubeconfig, '-o', 'json');
    expect(JSON.parse(json.stdout)).toMatchObject({ ready: false });
  });

  it('refuses --kubeconfig without --check, and names the context of an unreachable server', async () => {
    const convert = await run('migrate', '--kubeconfig', cluster.kubeconfig);
    expect(convert.code).toBe(2);
    expect(convert.stderr).toContain('--kubeconfig needs --check');
    const down = await run('migrate', '--check', '--kubeconfig', cluster.kubeconfig, '--context', 'down');
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(`kubeconfig ${cluster.kubeconfig}, context down: cannot read the cluster`);
  });
});
