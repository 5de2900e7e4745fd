// `karpless nodeclaims --table T --cluster C`: a deployed cluster's NodeClaims as `kubectl get nodeclaims` shows
// Karpenter's (name, type, capacity type, zone, node, readiness, age), plus what Karpless adds: the state, the price
// and any disruption in flight. NodeClaims live in DynamoDB, not the API server, so this is how to list them.
// `--from-sim SCENARIO` runs a scenario and prints the NodeClaim objects the control plane mirrored into the simulated
// cluster, as `kubectl get nodeclaims` would show them.
import { LabelNodePool } from '../../shared/api/labels';
import { LIVE_STATES, type NodeClaim } from '../../shared/api/nodeclaim';
import type { NodeClaimObject } from '../../shared/api/nodeclaim-object';
import { catalogEngine } from '../../shared/sim/default-engine';
import { loadScenario, productionSweepEngine, runScenario } from '../../shared/sim/scenario';
import { disruptionText } from '../format/nodeclaim';
import { formatAge, renderNodeClaimObjects } from '../format/nodeclaim-objects';
import { formatPrice, renderTable, roundPrice } from '../format/table';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../io';
import { awsProblem } from './aws-problem';
import { resolveCatalog } from './catalog-option';
import type { CommandContext } from './index';
import { openTableStore, type TableOptions, tableOptionsProblem } from './table-option';

export interface NodeClaimsOptions extends TableOptions {
  all?: boolean;
  nodepool?: string;
  output: string;
  fromSim?: string;
  seed?: string;
}

export { formatAge };

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
  if (opts.fromSim && opts.table) return usage('give one of --table TABLE (with --cluster) or --from-sim SCENARIO');
  if (opts.fromSim) return fromSim(ctx, opts, opts.fromSim, usage);
  if (!opts.table) return usage('--table TABLE and --cluster NAME are required');
  const problem = tableOptionsProblem(opts);
  if (problem) return usage(problem);
  if (opts.output !== 'text' && opts.output !== 'json') {
    return usage(`--output: "${opts.output}" is not one of text, json`);
  }
  const store = await openTableStore({ ...opts, table: opts.table, cluster: opts.cluster as string });
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

/** Runs the scenario and prints the NodeClaim objects in its simulated cluster at the end. */
async function fromSim(
  ctx: CommandContext,
  opts: NodeClaimsOptions,
  file: string,
  usage: (message: string) => void,
): Promise<void> {
  if (opts.output !== 'text' && opts.output !== 'json') {
    return usage(`--output: "${opts.output}" is not one of text, json`);
  }
  const seed = Number(opts.seed ?? '1');
  if (!Number.isInteger(seed) || seed < 0) return usage(`--seed: "${opts.seed}" is not a non-negative integer`);
  let objects: NodeClaimObject[];
  let now: number;
  try {
    const scenario = await loadScenario(file);
    const run = await runScenario(scenario, catalogEngine(await resolveCatalog({})), {
      seed,
      sweep: productionSweepEngine(),
    });
    now = run.world.clock.now();
    objects = (await run.world.cluster.listNodeClaimObjects()).filter(
      (o) => !opts.nodepool || o.metadata.labels?.[LabelNodePool] === opts.nodepool,
    );
  } catch (err) {
    return usage((err as Error).message);
  }
  ctx.io.out(opts.output === 'json' ? JSON.stringify(objects, null, 2) : renderNodeClaimObjects(objects, now));
  ctx.result.code = EXIT_OK;
}
