// The human view of a simulation: the planned NodeClaims, where existing nodes took pods, what could not be
// scheduled and why, and what it costs against the LP lower bound.
import { pendingLines } from './pending-groups';
import type { SimulateReport } from './simulate-report';
import { CLAIM_COLUMNS, claimCells, estimateNote, formatClaimPrice, formatPrice, renderTable } from './table';

export function renderSimulateTable(report: SimulateReport): string {
  const out: string[] = [];
  if (report.summary.defaultNodePool) {
    out.push(`Using the embedded default NodePool "${report.summary.defaultNodePool}" (no NodePool was given).`, '');
  }
  if (report.nodeClaims.length > 0) {
    out.push(
      renderTable(
        [
          ...CLAIM_COLUMNS,
          // Allocatable both: what pods get, after the reserves (docs/catalog.md, "Capacity, overhead and allocatable").
          { header: 'ALLOC CPU', align: 'right' },
          { header: 'ALLOC MEM', align: 'right' },
          { header: '$/HOUR', align: 'right' },
          { header: 'PODS', align: 'right' },
        ],
        report.nodeClaims.map((c) => [
          ...claimCells(c),
          c.allocatable.cpu ?? '',
          c.allocatable.memory ?? '',
          formatClaimPrice(c),
          c.pods.length,
        ]),
      ),
      ...estimateNote(report.nodeClaims),
    );
  } else {
    out.push('No new NodeClaims needed.');
  }
  if (report.existingNodes.length > 0) {
    out.push(
      '',
      'Existing nodes:',
      renderTable(
        ['NODE', { header: 'RUNNING PODS', align: 'right' }, { header: 'NEW PODS', align: 'right' }],
        report.existingNodes.map((n) => [
          n.inflight ? `${n.name} (in flight)` : n.name,
          n.boundPods.length,
          n.pods.length,
        ]),
      ),
    );
  }
  if (report.unschedulable.length > 0) {
    out.push('', `Unschedulable pods (${report.unschedulable.length}):`);
    out.push(...pendingLines(report.pendingGroups ?? []));
  }
  if (report.deferred && report.deferred.length > 0) {
    out.push(
      '',
      `Deferred pods (${report.deferred.length}): the time budget ran out before they were planned; the next pass plans them.`,
    );
  }
  if (report.replaced) {
    out.push('', `Replaced by a later -f (${report.replaced.length}):`);
    for (const r of report.replaced) out.push(`  ${r.kind} ${r.name}: ${r.replaced} replaced by ${r.by}`);
  }
  if (report.warnings.length > 0) {
    out.push('', 'Warnings:');
    for (const w of report.warnings) out.push(`  ${w}`);
  }
  const s = report.summary;
  // Without requests the bound counts pod slots only, so the ratio says how many pods fit per node, not packing.
  const requestless = s.podsWithoutRequests
    ? `; ${s.podsWithoutRequests} pod(s) request no CPU or memory, so the bound counts only their pod slots`
    : '';
  const approx = estimateNote(report.nodeClaims).length > 0 ? '~' : '';
  const ratio =
    s.lowerBoundPerHour > 0 ? ` (${(s.costPerHour / s.lowerBoundPerHour).toFixed(3)}× the bound${requestless})` : '';
  const proven = s.packing?.provenOptimal ? ': optimal (proven)' : '';
  out.push(
    '',
    `Summary: ${s.scheduledPods}/${s.pods} pods scheduled, ${s.nodeClaims} new NodeClaim(s), ` +
      `${approx}${formatPrice(s.costPerHour)}/h${proven}; LP lower bound ${formatPrice(s.lowerBoundPerHour)}/h${ratio}.`,
  );
  if (s.lowerBoundPerHour > 0) out.push(BOUND_LINE);
  if (s.packing) out.push(packingLine(s.packing));
  return out.join('\n');
}

/** What the LP lower bound is, so a ratio above 1 is not read as waste (docs/simulate-dump.md, "Reading the
 * report"). */
const BOUND_LINE =
  'Bound: the cost if pods could be split across nodes at the best price per unit of what they request; whole ' +
  'pods on whole nodes cost more, so a plan can be optimal above it.';

/** Whether the packing is proven optimal, or how far the exactly judged part may be from its bound. */
function packingLine(p: NonNullable<SimulateReport['summary']['packing']>): string {
  if (p.provenOptimal)
    return 'Packing: every new NodeClaim packed by the exact integer program, which proves it optimal.';
  if (p.exactPods === 0) return 'Packing: heuristic (topology, host ports or batch size kept the exact program out).';
  const judged =
    p.costPerHour <= p.boundPerHour + 1e-6
      ? `optimal at ${formatPrice(p.costPerHour)}/h`
      : `${formatPrice(p.costPerHour)}/h, within ${((p.costPerHour / p.boundPerHour - 1) * 100).toFixed(1)}% of their bound ${formatPrice(p.boundPerHour)}/h`;
  const rest = p.newPods - p.exactPods;
  return rest > 0
    ? `Packing: ${p.exactPods}/${p.newPods} new pods packed exactly (${judged}); ${rest} by the heuristic (topology, host ports or batch size).`
    : `Packing: new pods packed exactly, ${judged}.`;
}
