// `karpless explain NODE|NODECLAIM`: why a node was launched, kept or removed, from its decision records. Records
// come from a NodeClaimStore (`listDecisions`): a deployed cluster's DynamoDB table via --table and --cluster
// (explain-table.ts), a JSON file of records (`karpless simulate --scenario FILE --decisions-out FILE`) via --store,
// or a scenario run on the spot via --from-sim. A node name is resolved to its claim through the store's claims or
// the records' candidates.
import { readInputFile } from '../../shared/api/input-file';
import { DEFAULT_INPUT_LIMITS } from '../../shared/api/limits';
import type { DecisionRecord, NodeClaim } from '../../shared/api/nodeclaim';
import type { AppliedPriceOverlay } from '../../shared/catalog/types';
import { catalogEngine } from '../../shared/sim/default-engine';
import { loadScenario, productionSweepEngine, runScenario } from '../../shared/sim/scenario';
import { disruptionText } from '../format/nodeclaim';
import { overlayText, PROVISION_KEYS, provisionLines } from '../format/provision-record';
import { formatPrice } from '../format/table';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../io';
import { awsProblem } from './aws-problem';
import { resolveCatalog } from './catalog-option';
import { type PlanSource, planSource } from './explain-plan';
import { tableSource } from './explain-table';
import type { CommandContext } from './index';
import { type TableOptions, tableOptionsProblem } from './table-option';

/** What explain needs from a store: the NodeClaimStore's `listDecisions`, plus node-to-claim resolution. */
export interface DecisionSource {
  listDecisions(nodeClaim: string): Promise<DecisionRecord[]>;
  /** The claim behind a node name, when the source knows it. */
  claimOfNode(node: string): Promise<string | undefined>;
  /** The claim as it stands now, from a source that keeps claims (a table, a simulated store). */
  claim?(name: string): Promise<NodeClaim | undefined>;
}

/** Records from memory (a file's contents): claims by `nodeClaims`, nodes by the candidates the records name. */
export function recordsSource(records: DecisionRecord[]): DecisionSource {
  const sorted = [...records].sort((a, b) => a.at.localeCompare(b.at) || a.id.localeCompare(b.id));
  return {
    listDecisions: async (claim) => sorted.filter((r) => r.nodeClaims.includes(claim)),
    claimOfNode: async (node) => {
      for (const r of sorted) {
        const chosen = Array.isArray(r.detail.chosen)
          ? (r.detail.chosen as { name?: string; nodeClaim?: string }[])
          : [];
        const hit = chosen.find((c) => c.name === node && c.nodeClaim);
        if (hit?.nodeClaim) return hit.nodeClaim;
        if (r.detail.node === node && r.nodeClaims[0]) return r.nodeClaims[0];
      }
      return undefined;
    },
  };
}

function isRecord(x: unknown): x is DecisionRecord {
  if (!x || typeof x !== 'object') return false;
  const r = x as Partial<DecisionRecord>;
  return (
    typeof r.id === 'string' && typeof r.at === 'string' && Array.isArray(r.nodeClaims) && typeof r.kind === 'string'
  );
}

const RECORDS_FILE = 'a JSON array of decision records (from simulate --scenario FILE --decisions-out FILE)';

/**
 * Reads a records file: a JSON array of DecisionRecords, or an object with a `decisions` array. Every refusal is one
 * line naming the file and what it should hold.
 */
export async function readRecordsFile(path: string, onWait?: (line: string) => void): Promise<DecisionRecord[]> {
  const text = await readInputFile(path, {
    expected: RECORDS_FILE,
    maxBytes: DEFAULT_INPUT_LIMITS.maxFileBytes,
    ...(onWait ? { onWait } : {}),
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    // JSON.parse quotes the start of the text, new lines included; the message stays on one line.
    throw new Error(
      `${path}: not valid JSON (${(err as Error).message.replace(/\s+/g, ' ')}); expected ${RECORDS_FILE}`,
    );
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { decisions?: unknown })?.decisions;
  if (!Array.isArray(list))
    throw new Error(`${path}: expected a JSON array of decision records or { "decisions": [...] }`);
  list.forEach((r, i) => {
    if (!isRecord(r)) throw new Error(`${path}: [${i}] is not a decision record (needs id, at, kind, nodeClaims)`);
  });
  return list as DecisionRecord[];
}

export interface Explanation {
  nodeClaim: string;
  node?: string;
  /** The claim now, when the source keeps claims and still has it. */
  current?: NodeClaim;
  records: DecisionRecord[];
}

export async function explain(name: string, source: DecisionSource): Promise<Explanation | undefined> {
  const direct = await source.listDecisions(name);
  const claim = direct.length ? name : await source.claimOfNode(name);
  if (!claim) return undefined;
  const records = direct.length ? direct : await source.listDecisions(claim);
  if (!records.length) return undefined;
  const current = await source.claim?.(claim);
  return { nodeClaim: claim, ...(claim !== name ? { node: name } : {}), ...(current ? { current } : {}), records };
}

const money = (x: unknown): string => (typeof x === 'number' ? `${formatPrice(x)}/h` : String(x));

interface ScoreLine {
  nodePool: string;
  score: number | string;
  threshold: number;
  k: number;
  savingsFraction: number;
  disruptionFraction: number;
  approved: boolean;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** Karpenter's event wording for a scored move: "score 0.62 >= threshold 0.50 (k: 2, savings ..%, disruption ..%)". */
const scoreLine = (s: ScoreLine): string =>
  `score ${typeof s.score === 'number' ? s.score.toFixed(2) : '+Inf'} ${s.approved ? '>=' : '<'} threshold ${Number(
    s.threshold,
  ).toFixed(2)} (k: ${s.k}, savings ${pct(s.savingsFraction)}, disruption ${pct(s.disruptionFraction)})`;

/** A Disrupt record's candidate or replacement price, with the NodeOverlay that set it. */
interface Priced {
  price: number;
  overlay?: AppliedPriceOverlay;
}

/** The NodeOverlay behind a price in a Disrupt record, as explain prints it under a Provision record's offering. */
function pricedBy(name: string, price: number, overlay: AppliedPriceOverlay | undefined): string[] {
  if (!overlay) return [];
  const offering = { instanceType: '', zone: '', capacityType: 'on-demand' as const, price, overlay };
  return overlayText(offering).map((line) => `  ${name}: ${line}`);
}

/** The evidence lines worth reading for one record; unknown detail keys are summarized, not dropped. */
function detailLines(r: DecisionRecord, nodeClaim: string): string[] {
  const d = r.detail;
  const out: string[] = r.kind === 'Provision' ? provisionLines(d, nodeClaim) : [];
  const chosen = Array.isArray(d.chosen) ? (d.chosen as (Priced & { name: string; pods: number })[]) : [];
  if (chosen.length) {
    out.push(`nodes: ${chosen.map((c) => `${c.name} (${money(c.price)}, ${c.pods} pod(s))`).join(', ')}`);
    for (const c of chosen) out.push(...pricedBy(c.name, c.price, c.overlay));
  }
  if (d.method)
    out.push(
      `method: ${String(d.method)}${d.considered !== undefined ? `, ${d.considered} candidate(s) considered` : ''}`,
    );
  const replacements = Array.isArray(d.replacements) ? (d.replacements as Record<string, unknown>[]) : [];
  for (const x of replacements) {
    out.push(`replacement: ${x.name} ${x.instanceType} ${x.capacityType} in ${x.zone} at ${money(x.pricePerHour)}`);
    out.push(...pricedBy(String(x.name), Number(x.pricePerHour), x.overlay as AppliedPriceOverlay | undefined));
  }
  if (d.savingPerHour !== undefined) out.push(`saving: ${money(d.savingPerHour)}`);
  if (d.moves && typeof d.moves === 'object') {
    const moves = Object.entries(d.moves as Record<string, string[]>);
    if (moves.length) out.push(`pods moving to: ${moves.map(([n, p]) => `${n} (${p.length})`).join(', ')}`);
  }
  if (d.drift)
    out.push(`drift: ${typeof d.drift === 'string' ? d.drift : Object.values(d.drift as object).join('; ')}`);
  const waits = Array.isArray(d.drainWaitsOn) ? (d.drainWaitsOn as string[]) : [];
  for (const w of waits) out.push(`drain waits on: ${w}`);
  // Balanced NodePools' scores: why the move passed (docs/disruption.md, "Balanced consolidation").
  const scores = Array.isArray(d.score) ? (d.score as ScoreLine[]) : [];
  for (const s of scores) out.push(`score: NodePool ${s.nodePool} ${scoreLine(s)}`);
  const blockers = Array.isArray(d.blockers) ? (d.blockers as string[]) : [];
  for (const b of blockers) out.push(`blocker: ${b}`);
  const known = new Set([
    'chosen',
    'method',
    'considered',
    'replacements',
    'savingPerHour',
    'moves',
    'drift',
    'drainWaitsOn',
    'blockers',
    'score',
    'reason',
    'forceful',
    'node',
    'nodePool',
    'pricePerHour',
    'pods',
    ...(r.kind === 'Provision' ? PROVISION_KEYS : []),
  ]);
  if (r.truncated) {
    const cuts = Object.entries(r.truncated).map(([path, n]) => `${path} (${n} more)`);
    out.push(`truncated to fit the store: ${cuts.join(', ')}`);
  }
  for (const [k, v] of Object.entries(d)) {
    // Empty lists say nothing.
    if (known.has(k) || v === undefined || (Array.isArray(v) && v.length === 0)) continue;
    const text = typeof v === 'object' ? JSON.stringify(v) : String(v);
    out.push(`${k}: ${text.length > 160 ? `${text.slice(0, 157)}...` : text}`);
  }
  return out;
}

/** One line on where the claim stands: its state, and what it launched as, where, at what price, on which node. */
export function describeCurrent(c: NodeClaim): string {
  const parts = [`now: ${c.state}${c.stateTimes[c.state] ? ` since ${c.stateTimes[c.state]}` : ''}`];
  if (c.instanceType) {
    const price = c.pricePerHour !== undefined ? ` at ${money(c.pricePerHour)}` : '';
    parts.push(`${[c.instanceType, c.capacityType].filter(Boolean).join(' ')} in ${c.zone ?? '?'}${price}`);
  }
  if (c.nodeName) parts.push(`node ${c.nodeName}`);
  if (c.disruption) parts.push(`disruption ${disruptionText(c.disruption)}`);
  return parts.join(', ');
}

export function renderExplanation(e: Explanation): string {
  const lines = [`NodeClaim ${e.nodeClaim}${e.node ? ` (node ${e.node})` : ''}: ${e.records.length} decision(s)`];
  if (e.current) lines.push(describeCurrent(e.current));
  for (const r of e.records) {
    lines.push('', `${r.at}  ${r.kind}  ${r.summary}`);
    for (const l of detailLines(r, e.nodeClaim)) lines.push(`    ${l}`);
  }
  return lines.join('\n');
}

const pendingText = (p: { pod: string; reason: string }): string => `Pod ${p.pod}: pending in this plan: ${p.reason}`;

export interface ExplainOptions extends TableOptions {
  store?: string;
  /** Manifests to plan as `simulate -f` does, explaining the plan (explain-plan.ts). */
  file?: string[];
  fromSim?: string;
  seed: string;
  output: string;
  catalog?: string;
}

async function sourceFor(opts: ExplainOptions, onWait: (line: string) => void): Promise<DecisionSource> {
  if (opts.table) return tableSource({ ...opts, table: opts.table, cluster: opts.cluster as string });
  if (opts.store) return recordsSource(await readRecordsFile(opts.store, onWait));
  const scenario = await loadScenario(opts.fromSim as string, onWait);
  const run = await runScenario(scenario, catalogEngine(await resolveCatalog(opts, onWait)), {
    seed: Number(opts.seed),
    sweep: productionSweepEngine(),
  });
  const store = run.world.store;
  return {
    listDecisions: (claim) => store.listDecisions(claim),
    claimOfNode: async (node) => (await store.list()).find((c) => c.nodeName === node)?.name,
    claim: (name) => store.get(name),
  };
}

export async function runExplain(ctx: CommandContext, name: string, opts: ExplainOptions): Promise<void> {
  const usage = (message: string): void => {
    ctx.io.err(message);
    ctx.result.code = EXIT_USAGE;
  };
  const sources = [opts.table, opts.store, opts.fromSim, opts.file].filter(Boolean).length;
  if (sources !== 1) {
    return usage('give exactly one of --table TABLE (with --cluster), --store FILE, --from-sim SCENARIO or -f PATH');
  }
  const tableProblem = tableOptionsProblem(opts);
  if (tableProblem) return usage(tableProblem);
  if (opts.output !== 'text' && opts.output !== 'json')
    return usage(`--output: "${opts.output}" is not one of text, json`);
  const seed = Number(opts.seed);
  if (!Number.isInteger(seed) || seed < 0) return usage(`--seed: "${opts.seed}" is not a non-negative integer`);
  let source: DecisionSource;
  let pending: PlanSource['pending'] | undefined;
  try {
    if (opts.file) ({ source, pending } = await planSource(opts.file, opts, ctx.io.readStdin));
    else source = await sourceFor(opts, (line) => ctx.io.err(line));
  } catch (err) {
    return usage((err as Error).message);
  }
  const waiting = pending?.get(name);
  if (waiting) {
    // A pod the plan leaves pending has no records: its reason is the whole explanation.
    ctx.io.out(opts.output === 'json' ? JSON.stringify({ ...waiting, pending: true }, null, 2) : pendingText(waiting));
    ctx.result.code = EXIT_OK;
    return;
  }
  let e: Explanation | undefined;
  try {
    e = await explain(name, source);
  } catch (err) {
    // An AWS error reading the table (no region, no credentials, no such table): what to pass or set, in one line.
    const problem = opts.table ? awsProblem(err, { table: opts.table, region: opts.region }) : (err as Error).message;
    ctx.io.err(`reading decision records: ${problem}`);
    ctx.result.code = EXIT_FAILURE;
    return;
  }
  if (!e) {
    ctx.io.err(`no decision records for ${name} (neither a NodeClaim nor a node any record names)`);
    ctx.result.code = EXIT_FAILURE;
    return;
  }
  ctx.io.out(opts.output === 'json' ? JSON.stringify(e, null, 2) : renderExplanation(e));
  ctx.result.code = EXIT_OK;
}
