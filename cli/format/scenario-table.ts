// The terminal view of a scenario run: what happened (totals, violations, cost against the bound), the fleet at the
// end, and the timeline with the noisy pod-level entries folded away.
import type { ScenarioReport } from '../../shared/sim/scenario';
import { CLAIM_COLUMNS, claimCells, estimateNote, formatClaimPrice, formatPrice, renderTable } from './table';

const QUIET = new Set(['Nominated', 'Bound', 'Registered']);
const MAX_TIMELINE_ROWS = 60;

export function renderScenarioTable(report: ScenarioReport): string {
  const out: string[] = [];
  const t = report.totals;
  const v = report.violations;
  out.push(`Scenario ${report.scenario} (seed ${report.seed}), ${report.until} simulated`, '');
  out.push(
    renderTable(
      ['MEASURE', { header: 'VALUE', align: 'right' }],
      [
        ['node hours', t.nodeHours.toFixed(2)],
        ['cost', `$${t.cost.toFixed(2)}`],
        ['disruptions', t.disruptions],
        ['pod evictions', t.podEvictions],
        ['longest pending pod', `${t.maxPendingSeconds}s`],
        ['violations (pdb / do-not-disrupt / budget)', `${v.pdb} / ${v.doNotDisrupt} / ${v.budget}`],
      ],
    ),
  );
  const events = report.timeline.filter((e) => !QUIET.has(e.type));
  out.push('', `Timeline (${events.length} of ${report.timeline.length} entries; pod-level entries in --output json):`);
  const shown = events.length > MAX_TIMELINE_ROWS ? [...events.slice(0, 30), ...events.slice(-30)] : events;
  out.push(
    renderTable(
      [{ header: 'AT', align: 'right' }, 'EVENT', 'NODECLAIM', 'REASON', 'DETAIL'],
      shown.map((e) => [
        e.at,
        e.type,
        e.nodeClaim,
        e.reason,
        e.detail.length > 90 ? `${e.detail.slice(0, 87)}...` : e.detail,
      ]),
    ),
  );
  if (events.length > MAX_TIMELINE_ROWS)
    out.push(`  ... ${events.length - MAX_TIMELINE_ROWS} entries in the middle left out`);
  out.push('', 'NodeClaims at the end:');
  out.push(
    report.nodeClaims.length === 0
      ? '  none'
      : renderTable(
          [...CLAIM_COLUMNS, { header: '$/HOUR', align: 'right' }, { header: 'PODS', align: 'right' }],
          report.nodeClaims.map((c) => [...claimCells(c), formatClaimPrice(c), c.pods.length]),
        ),
    ...estimateNote(report.nodeClaims),
  );
  if (report.unschedulable.length > 0) {
    out.push('', `Pods still pending at the end (${report.unschedulable.length}):`);
    for (const u of report.unschedulable.slice(0, 20)) out.push(`  ${u.pod}: ${u.reason}`);
  }
  const s = report.summary;
  const ratio = s.lowerBoundPerHour > 0 ? ` (${(s.costPerHour / s.lowerBoundPerHour).toFixed(3)}× the bound)` : '';
  out.push(
    '',
    `End state: ${s.scheduledPods}/${s.pods} pods running on ${s.nodeClaims} NodeClaim(s), ${formatPrice(s.costPerHour)}/h; ` +
      `LP lower bound ${formatPrice(s.lowerBoundPerHour)}/h${ratio}.`,
  );
  return out.join('\n');
}
