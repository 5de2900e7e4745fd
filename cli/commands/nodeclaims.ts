// `karpless nodeclaims --table T --cluster C`: a deployed cluster's NodeClaims as `kubectl get nodeclaims` shows
// Karpenter's (name, type, capacity type, zone, node, readiness, age), plus what Karpless adds: the state, the price
// and any disruption in flight. NodeClaims live in DynamoDB, not the API server, so this is how to list them.
import { LIVE_STATES, type NodeClaim } from '../../shared/api/nodeclaim';
import { disruptionText } from '../format/nodeclaim';
import { formatPrice, renderTable, roundPrice } from '../format/table';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../io';
import { awsProblem } from './aws-problem';
import type { CommandContext } from './index';
import { openTableStore, type TableOptions, tableOptionsProblem } from './table-option';

export interface NodeClaimsOptions extends TableOptions {
  all?: boolean;
  nodepool?: string;
  output: string;
}

/** kubectl's age: the largest whole unit, seconds up to two minutes, then minutes, hours, days. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 2 * 3600) return `${Math.floor(s / 60)}m`;
  if (s < 2 * 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/** Karpenter's READY column: True once initialized, and still while it drains; False when gone or failed. */
function readiness(c: NodeClaim): string {
  if (c.state === 'Terminated' || c.state === 'Failed') return 'False';
  if (c.state === 'Initialized' || (c.state === 'Draining' && c.stateTimes.Initialized)) return 'True';
  return 'Unknown';
}

export function renderNodeClaims(claims: readonly NodeClaim[], now: number): string {
  const rows = claims.map((c) => [
    c.name,
    c.nodePool,
    c.instanceType ?? '',
    c.capacityType ?? '',
    c.zone ?? '',
    c.nodeName ?? '',
    readiness(c),
    c.state,
    formatAge(now - Date.parse(c.createdAt)),
    c.pricePerHour === undefined ? '' : formatPrice(c.pricePerHour),
    disruptionText(c.disruption),
  ]);
  const cost = claims.reduce((sum, c) => sum + (LIVE_STATES.includes(c.state) ? (c.pricePerHour ?? 0) : 0), 0);
  const right = (header: string) => ({ header, align: 'right' as const });
  return [
    renderTable(
      [
        'NAME',
        'NODEPOOL',
        'TYPE',
        'CAPACITY',
        'ZONE',
        'NODE',
        'READY',
        'STATE',
        right('AGE'),
        right('$/HOUR'),
        'DISRUPTION',
      ],
      rows,
    ),
    '',
    `${claims.length} NodeClaim(s); the live ones cost ${formatPrice(roundPrice(cost))}/h`,
  ].join('\n');
}

export async function runNodeClaims(ctx: CommandContext, opts: NodeClaimsOptions, now = Date.now()): Promise<void> {
  const usage = (message: string): void => {
    ctx.io.err(message);
    ctx.result.code = EXIT_USAGE;
  };
  if (!opts.table) return usage('--table TABLE and --cluster NAME are required');
  const problem = tableOptionsProblem(opts);
  if (problem) return usage(problem);
  if (opts.output !== 'text' && opts.output !== 'json') {
    return usage(`--output: "${opts.output}" is not one of text, json`);
  }
  const store = openTableStore({ ...opts, table: opts.table, cluster: opts.cluster as string });
  let claims: NodeClaim[];
  try {
    claims = await store.list({
      ...(opts.all ? {} : { states: LIVE_STATES }),
      ...(opts.nodepool ? { nodePool: opts.nodepool } : {}),
    });
  } catch (err) {
    ctx.io.err(`reading NodeClaims: ${awsProblem(err, { table: opts.table, region: opts.region })}`);
    ctx.result.code = EXIT_FAILURE;
    return;
  }
  claims.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.name.localeCompare(b.name));
  ctx.io.out(opts.output === 'json' ? JSON.stringify(claims, null, 2) : renderNodeClaims(claims, now));
  ctx.result.code = EXIT_OK;
}
