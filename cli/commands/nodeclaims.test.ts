import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeClaim } from '../../shared/api/nodeclaim';
import { nodeClaim } from '../../testkit/builders';
import { type LocalTable, startLocalTable } from '../../testkit/local-table';
import { bufferIO } from '../io';
import { main } from '../main';
import { formatAge } from './nodeclaims';

let local: LocalTable;
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

beforeAll(async () => {
  local = await startLocalTable();
  const store = local.store('prod');
  const launched = (name: string, o: Partial<NodeClaim>) =>
    nodeClaim({ name, cluster: 'prod', instanceType: 'm5.large', capacityType: 'spot', zone: 'us-east-1a', ...o });
  await store.create(
    launched('default-aaaaa', {
      state: 'Initialized',
      createdAt: minutesAgo(300),
      nodeName: 'ip-10-0-1-17.ec2.internal',
      pricePerHour: 0.0326,
    }),
  );
  await store.create(
    launched('default-bbbbb', {
      state: 'Initialized',
      createdAt: minutesAgo(90),
      nodeName: 'ip-10-0-2-9.ec2.internal',
      instanceType: 'c5.xlarge',
      capacityType: 'on-demand',
      zone: 'us-east-1b',
      pricePerHour: 0.17,
      disruption: { cause: 'Underutilized', at: minutesAgo(1), phase: 'Validating' },
    }),
  );
  await store.create(nodeClaim({ name: 'gpu-ccccc', cluster: 'prod', nodePool: 'gpu', createdAt: minutesAgo(0.5) }));
  await store.create(launched('default-ddddd', { state: 'Failed', createdAt: minutesAgo(20) }));
  await store.create(
    launched('default-fffff', {
      state: 'Draining',
      createdAt: minutesAgo(0.25),
      stateTimes: { Initialized: minutesAgo(0.2) },
      nodeName: 'ip-10-0-3-3.ec2.internal',
      pricePerHour: 0.0326,
      disruption: { cause: 'Drifted', at: minutesAgo(0.1) },
    }),
  );
  await local.store('dev').create(nodeClaim({ name: 'dev-eeeee', cluster: 'dev' }));
});
afterAll(async () => {
  await local.stop();
});

async function run(...args: string[]) {
  const io = bufferIO();
  const code = await main(['nodeclaims', ...args], io);
  return { code, stdout: io.stdout.join(''), stderr: io.stderr.join('') };
}

describe('karpless nodeclaims', () => {
  it("lists a cluster's live NodeClaims oldest first, with Karpenter's columns, the state, price and disruption", async () => {
    const r = await run(...local.args('prod'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^NAME\s+NODEPOOL\s+TYPE\s+CAPACITY\s+ZONE\s+NODE\s+READY\s+STATE\s+AGE\s+\$\/HOUR\s+DISRUPTION$/,
    );
    expect(lines[1]).toMatch(
      /^default-aaaaa\s+default\s+m5\.large\s+spot\s+us-east-1a\s+ip-10-0-1-17\.ec2\.internal\s+True\s+Initialized\s+5h\s+\$0\.0326$/,
    );
    expect(lines[2]).toMatch(
      /^default-bbbbb\s+default\s+c5\.xlarge\s+on-demand .* 90m\s+\$0\.1700\s+Underutilized \(Validating\)$/,
    );
    expect(lines[3]).toMatch(/^gpu-ccccc\s+gpu\s+Unknown\s+Pending\s+30s$/);
    // A draining node is still ready, as Karpenter's NodeClaim stays Ready until it is gone.
    expect(lines[4]).toMatch(/^default-fffff .* True\s+Draining\s+15s\s+\$0\.0326\s+Drifted$/);
    expect(r.stdout).not.toContain('default-ddddd');
    expect(r.stdout).not.toContain('dev-eeeee');
    expect(lines.at(-1)).toBe('4 NodeClaim(s); the live ones cost $0.2352/h');
  });

  it('adds failed claims with --all, filters by NodePool, and prints JSON', async () => {
    const all = await run(...local.args('prod'), '--all');
    expect(all.stdout).toMatch(/default-ddddd .* False\s+Failed\s+20m/);
    const gpu = JSON.parse((await run(...local.args('prod'), '--nodepool', 'gpu', '-o', 'json')).stdout);
    expect(gpu.map((c: NodeClaim) => c.name)).toEqual(['gpu-ccccc']);
  });

  it('needs a table and a cluster, and names the table when DynamoDB refuses', async () => {
    expect((await run()).stderr).toContain('--table TABLE and --cluster NAME are required');
    expect((await run('--table', local.db.tableName)).code).toBe(2);
    const missing = await run(...local.args('prod', 'no-such-table'));
    expect(missing.code).toBe(1);
    expect(missing.stderr.trimEnd()).toMatch(
      /^reading NodeClaims: table no-such-table not found in us-east-1: pass --table with the stack's TableName output and --region with its region$/,
    );
  });

  it('prints ages as kubectl does', () => {
    expect([59_000, 119_000, 120_000, 7_199_000, 7_200_000, 172_799_000, 172_800_000].map(formatAge)).toEqual([
      '59s',
      '119s',
      '2m',
      '119m',
      '2h',
      '47h',
      '2d',
    ]);
  });
});
