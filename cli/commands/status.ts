// `karpless status [--clusters FILE] [-o table|json] [CLUSTER]`: the fleet at a glance, one row per cluster of the
// clusters file, or a detail view of one. Everything is read from AWS with the caller's credentials; the table and
// queue names come from each cluster's stack (karpless-<name>), so nobody types them (docs/deploy.md, "Seeing the
// fleet").
import { existsSync } from 'node:fs';
import { SQSClient } from '@aws-sdk/client-sqs';
import { cloudFormationClient, cloudWatchClient, dynamoDocumentClient } from '../../shared/aws/clients';
import { DynamoNodeClaimStore } from '../../shared/aws/dynamo/store';
import { type ClusterStatus, readClusterStatus, type StatusReaders } from '../../shared/aws/status/read';
import { loadClusters } from '../../stacks/config';
import { stackName } from '../../stacks/constants';
import { formatPrice, renderTable } from '../format/table';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../io';
import { awsProblem } from './aws-problem';
import type { CommandContext } from './index';
import { formatAge } from './nodeclaims';

export interface StatusOptions {
  clusters: string;
  output: string;
  /** Every cluster's region instead of the one in the clusters file. */
  region?: string;
  /** One endpoint for every service (moto_server, LocalStack). */
  endpointUrl?: string;
}

/** Readers for one region with the SDK's default credential chain. */
export function statusReaders(region: string, endpoint?: string): StatusReaders {
  // The SDK's default of three attempts: a person is waiting on the answer.
  const options = { region, maxAttempts: 3, ...(endpoint ? { endpoint } : {}) };
  const documents = dynamoDocumentClient(options);
  return {
    cloudformation: cloudFormationClient(options),
    cloudwatch: cloudWatchClient(options),
    sqs: new SQSClient({ region, ...(endpoint ? { endpoint } : {}) }),
    store: (tableName, cluster) => new DynamoNodeClaimStore({ tableName, cluster, client: documents }),
    now: () => Date.now(),
  };
}

type Outcome = { cluster: string; region: string; status?: ClusterStatus; problem?: string };

export async function runStatus(
  ctx: CommandContext,
  name: string | undefined,
  opts: StatusOptions,
  readers: (region: string) => StatusReaders = (region) => statusReaders(region, opts.endpointUrl),
): Promise<void> {
  const usage = (message: string) => {
    ctx.io.err(message);
    ctx.result.code = EXIT_USAGE;
  };
  if (opts.output !== 'table' && opts.output !== 'json') {
    return usage(`--output: "${opts.output}" is not one of table, json`);
  }
  let clusters: { name: string; region: string }[];
  if (!existsSync(opts.clusters)) {
    return usage(
      `--clusters: ${opts.clusters} not found; pass --clusters with the file the stacks were deployed from (see clusters.example.yaml)`,
    );
  }
  try {
    clusters = loadClusters(opts.clusters);
  } catch (err) {
    return usage((err as Error).message);
  }
  if (name !== undefined) {
    clusters = clusters.filter((c) => c.name === name);
    if (clusters.length === 0) return usage(`cluster "${name}" is not in ${opts.clusters}`);
  }
  const outcomes: Outcome[] = await Promise.all(
    clusters.map(async (c): Promise<Outcome> => {
      const region = opts.region ?? c.region;
      const stack = stackName(c.name);
      try {
        const status = await readClusterStatus(readers(region), { name: c.name, region, stack });
        return { cluster: c.name, region, status };
      } catch (err) {
        return { cluster: c.name, region, problem: awsProblem(err, { stack, region }) };
      }
    }),
  );
  for (const o of outcomes) if (o.problem) ctx.io.err(`${o.cluster}: ${o.problem}`);
  const now = Date.now();
  if (opts.output === 'json') {
    const json = outcomes.map((o) => o.status ?? { cluster: o.cluster, region: o.region, error: o.problem });
    ctx.io.out(JSON.stringify(name === undefined ? json : json[0], null, 2));
  } else if (name !== undefined) {
    if (outcomes[0]?.status) ctx.io.out(renderDetail(outcomes[0].status, now));
  } else {
    ctx.io.out(renderFleet(outcomes, now));
  }
  ctx.result.code = outcomes.some((o) => o.problem) ? EXIT_FAILURE : EXIT_OK;
}

const ago = (at: string | undefined, now: number) => (at ? `${formatAge(now - Date.parse(at))} ago` : '-');

function nodesText(s: ClusterStatus): string {
  return s.nodes.map((g) => `${g.nodePool}/${g.capacityType} ${g.count}`).join(', ') || '-';
}

export function renderFleet(outcomes: readonly Outcome[], now: number): string {
  const right = (header: string) => ({ header, align: 'right' as const });
  const rows = outcomes.map((o) => {
    const s = o.status;
    if (!s) return [o.cluster, o.region, 'error (see above)', '', '', '', '', '', ''];
    return [
      s.cluster,
      s.region,
      nodesText(s),
      s.pendingPods === undefined ? '-' : String(s.pendingPods),
      formatPrice(s.pricePerHour),
      ago(s.lastDecision?.at, now),
      String(s.messagesInFlight),
      String(s.deadLetters),
      String(s.alarms.length),
    ];
  });
  return renderTable(
    [
      'CLUSTER',
      'REGION',
      'NODES (NODEPOOL/CAPACITY)',
      right('PENDING'),
      right('$/HOUR'),
      'LAST DECISION',
      right('IN FLIGHT'),
      right('DLQ'),
      right('ALARMS'),
    ],
    rows,
  );
}

export function renderDetail(s: ClusterStatus, now: number): string {
  const right = (header: string) => ({ header, align: 'right' as const });
  const launching = Object.entries(s.launching).map(([state, n]) => `${n} ${state}`);
  const lines = [
    `cluster ${s.cluster} (${s.region}), stack ${s.stack}, table ${s.tableName}`,
    '',
    s.nodes.length
      ? renderTable(
          ['NODEPOOL', 'CAPACITY', right('NODES'), right('$/HOUR')],
          s.nodes.map((g) => [g.nodePool, g.capacityType, String(g.count), formatPrice(g.pricePerHour)]),
        )
      : 'no live NodeClaims',
    `total: ${s.nodes.reduce((n, g) => n + g.count, 0)} node(s), ${formatPrice(s.pricePerHour)}/h${launching.length ? `; not yet initialized: ${launching.join(', ')}` : ''}`,
    `pending pods: ${s.pendingPods === undefined ? 'no PendingPods metric in the last 15 minutes' : s.pendingPods}`,
    `last decision: ${s.lastDecision ? `${ago(s.lastDecision.at, now)}, ${s.lastDecision.kind}: ${s.lastDecision.summary}` : 'none recorded'}`,
    '',
    renderTable(
      ['QUEUE', 'KIND', right('WAITING'), right('IN FLIGHT'), right('DELAYED')],
      s.queues.map((q) => [
        q.url.split('/').pop() ?? q.url,
        q.deadLetter ? 'dead-letter' : 'work',
        String(q.visible),
        String(q.inFlight),
        String(q.delayed),
      ]),
    ),
    '',
    s.alarms.length
      ? [
          'alarms in ALARM:',
          ...s.alarms.map((a) => `  ${a.name}${a.since ? ` (since ${a.since})` : ''}: ${a.reason}`),
        ].join('\n')
      : 'alarms in ALARM: none',
  ];
  return lines.join('\n');
}
