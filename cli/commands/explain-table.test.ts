// `karpless explain --table`: the records of a deployed cluster, read from DynamoDB (dynalite here) through the
// CLI's own client, as a user would run it against the stack's table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecisionRecord } from '../../shared/api/nodeclaim';
import { nodeClaim } from '../../testkit/builders';
import { type LocalTable, startLocalTable } from '../../testkit/local-table';
import { bufferIO } from '../io';
import { main } from '../main';

let local: LocalTable;

beforeAll(async () => {
  local = await startLocalTable();
  const store = local.store('prod');
  await store.create(
    nodeClaim({
      name: 'default-x7k2p',
      cluster: 'prod',
      state: 'Initialized',
      nodeName: 'ip-10-0-1-17.ec2.internal',
      instanceType: 'm5.large',
      capacityType: 'spot',
      zone: 'us-east-1a',
      pricePerHour: 0.0326,
      stateTimes: { Initialized: '2026-11-22T03:01:10.000Z' },
      instanceId: 'i-0abc1234def567890',
      providerID: 'aws:///us-east-1a/i-0abc1234def567890',
    }),
  );
  const record: DecisionRecord = {
    id: 'prov-1',
    cluster: 'prod',
    at: '2026-11-22T03:00:00.000Z',
    kind: 'Provision',
    nodeClaims: ['default-x7k2p'],
    summary: '3 pod(s) to place: 1 new NodeClaim(s) at $0.0960/h, 0 unschedulable',
    detail: { trigger: 'PodsPending', chosen: [{ name: 'default-x7k2p', price: 0.096, pods: 3 }] },
  };
  await store.putDecision(record);
  // Another cluster's record in the same table is never shown.
  await local.store('dev').putDecision({
    ...record,
    id: 'prov-dev',
    cluster: 'dev',
  });
});
afterAll(async () => {
  await local.stop();
});

async function run(...args: string[]) {
  const io = bufferIO();
  const code = await main(['explain', ...args], io);
  return { code, stdout: io.stdout.join(''), stderr: io.stderr.join('') };
}

const table = (cluster = 'prod', name?: string) => local.args(cluster, name);

describe('karpless explain --table', () => {
  it('explains a node of a deployed cluster by node name, instance id or providerID', async () => {
    for (const name of ['ip-10-0-1-17.ec2.internal', 'i-0abc1234def567890', 'aws:///us-east-1a/i-0abc1234def567890']) {
      const r = await run(name, ...table());
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout.split('\n').slice(0, 2)).toEqual([
        `NodeClaim default-x7k2p (node ${name}): 1 decision(s)`,
        'now: Initialized since 2026-11-22T03:01:10.000Z, m5.large spot in us-east-1a at $0.0326/h, node ip-10-0-1-17.ec2.internal',
      ]);
      expect(r.stdout).toContain('2026-11-22T03:00:00.000Z  Provision  3 pod(s) to place');
      expect(r.stdout).toContain('nodes: default-x7k2p ($0.0960/h, 3 pod(s))');
    }
    const json = JSON.parse((await run('default-x7k2p', ...table(), '-o', 'json')).stdout);
    expect(json.records.map((r: DecisionRecord) => r.id)).toEqual(['prov-1']);
  });

  it('reads only the named cluster, and says so when nothing matches', async () => {
    const r = await run('default-x7k2p', ...table('other'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no decision records for default-x7k2p');
  });

  it('names the table when DynamoDB refuses, and needs --cluster with --table', async () => {
    const missing = await run('x', ...table('prod', 'no-such-table'));
    expect(missing.code).toBe(1);
    expect(missing.stderr.trimEnd()).toMatch(
      /^reading decision records: table no-such-table not found in us-east-1: pass --table with the stack's TableName output/,
    );
    const usage = await run('x', '--table', local.db.tableName);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--table and --cluster go together');
  });
});
