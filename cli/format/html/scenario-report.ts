// A self-contained HTML report of a scenario run (`karpless simulate --scenario FILE --output html`): the headline
// numbers, cost against the LP lower bound with disruptions marked, nodes by NodePool, pending pods over time (what
// users watch after an interruption: time to capacity), the NodeClaims at the end and the timeline. Inline CSS and
// SVG only, so the file can be mailed or attached to a ticket as is.
import { parseDuration } from '../../../shared/api/quantity';
import type { ScenarioReport } from '../../../shared/sim/scenario';
import { estimateNote, formatClaimPrice } from '../table';
import { escapeHtml, lineChart, type Marker, type Series, stackedChart } from './svg';

const QUIET = new Set(['Nominated', 'Bound', 'Registered']);
const POOL_COLORS = ['#0969da', '#8250df', '#1a7f37', '#bf8700', '#cf222e', '#57606a', '#0550ae', '#953800'];
const EVENT_COLORS: Record<string, string> = {
  Launched: '#0969da',
  Initialized: '#1a7f37',
  Disrupting: '#bf8700',
  Drained: '#953800',
  Terminated: '#57606a',
  Interrupted: '#cf222e',
  Unschedulable: '#cf222e',
};

const seconds = (at: string): number => parseDuration(at) / 1000;
const money = (v: number): string => `$${v.toFixed(v < 10 ? 2 : 0)}`;

export function renderScenarioHtml(report: ScenarioReport): string {
  const end = seconds(report.until);
  const markers: Marker[] = report.timeline
    .filter((e) => e.type === 'Disrupting' || e.type === 'Interrupted')
    .map((e) => ({
      at: seconds(e.at),
      color: e.type === 'Interrupted' ? '#cf222e' : '#bf8700',
      label: `${e.at} ${e.type} ${e.nodeClaim}: ${e.reason}`,
    }));
  const costSeries: Series[] = [
    { name: 'cost $/h', color: '#0969da', points: report.costOverTime.map((c) => [seconds(c.at), c.costPerHour]) },
    {
      name: 'LP lower bound $/h',
      color: '#1a7f37',
      dashed: true,
      points: report.costOverTime.map((c) => [seconds(c.at), c.lowerBoundPerHour]),
    },
  ];
  const pools = [...new Set(report.nodesOverTime.flatMap((s) => Object.keys(s.byNodePool)))].sort();
  const times = report.nodesOverTime.map((s) => seconds(s.at));
  const poolSeries: Series[] = pools.map((pool, i) => ({
    name: `NodePool ${pool}`,
    color: POOL_COLORS[i % POOL_COLORS.length] as string,
    points: report.nodesOverTime.map((s) => [seconds(s.at), s.byNodePool[pool] ?? 0]),
  }));
  const pendingSeries: Series[] = [
    {
      name: 'pending pods (peak until the next sample)',
      color: '#cf222e',
      points: report.pendingOverTime.map((p) => [seconds(p.at), p.peak]),
    },
  ];
  const t = report.totals;
  const v = report.violations;
  const violated = v.pdb + v.doNotDisrupt + v.budget > 0;
  const s = report.summary;
  const ratio = s.lowerBoundPerHour > 0 ? s.costPerHour / s.lowerBoundPerHour : undefined;
  const events = report.timeline.filter((e) => !QUIET.has(e.type));
  const cards = [
    card('Simulated', report.until, `seed ${report.seed}`),
    card('Cost', `$${t.cost.toFixed(2)}`, `${t.nodeHours.toFixed(1)} node hours`),
    card('End state', `${money(s.costPerHour)}/h`, ratio ? `${ratio.toFixed(2)}× the lower bound` : 'no workload'),
    card('Disruptions', String(t.disruptions), `${t.podEvictions} pod evictions`),
    card('Longest pending', `${t.maxPendingSeconds}s`, `${s.scheduledPods}/${s.pods} pods running at the end`),
    card(
      'Violations',
      String(v.pdb + v.doNotDisrupt + v.budget),
      `PDB ${v.pdb} · do-not-disrupt ${v.doNotDisrupt} · budget ${v.budget}`,
      violated ? 'bad' : 'good',
    ),
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>Karpless scenario ${escapeHtml(report.scenario)}</title>
<style>
body{font:14px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Helvetica,Arial,sans-serif;color:#1f2328;margin:24px auto;max-width:1280px;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px}.sub{color:#59636e;margin:0 0 16px}
.cards{display:grid;grid-template-columns:repeat(3,1fr);gap:10px}.card{border:1px solid #d0d7de;border-radius:6px;padding:10px 12px}
.card .k{color:#59636e;font-size:12px;text-transform:uppercase;letter-spacing:.04em}.card .v{font-size:22px;font-weight:600}
.card .d{color:#59636e;font-size:12px}.card.good .v{color:#1a7f37}.card.bad{border-color:#cf222e}.card.bad .v{color:#cf222e}
.legend{display:flex;gap:16px;font-size:12px;color:#59636e;margin:4px 0}.legend span{display:inline-flex;align-items:center;gap:6px}
.tick{font-size:11px;fill:#59636e}.axis{font-size:12px;fill:#59636e}
table{border-collapse:collapse;width:100%;font-size:12.5px}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #eaeef2;vertical-align:top}
th{background:#f6f8fa;position:sticky;top:0}td.at{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
.ev{display:inline-block;padding:0 6px;border-radius:10px;color:#fff;font-size:11.5px}code{font-size:12px}
td.claim,td.ev-cell{white-space:nowrap}td.num{text-align:right;font-variant-numeric:tabular-nums}
</style></head><body>
<h1>Scenario <code>${escapeHtml(report.scenario)}</code></h1>
<p class="sub">${escapeHtml(report.until)} of simulated time from ${escapeHtml(report.startedAt)}; ${report.timeline.length} timeline entries, ${events.length} shown below.</p>
<div class="cards">${cards.join('')}</div>
<h2>Cost per hour against the LP lower bound</h2>
${lineChart(costSeries, { yLabel: '$ / hour', formatY: (x) => `$${x.toFixed(x < 1 ? 2 : 1)}`, end, markers })}
<p class="sub">Dotted verticals: disruptions (amber) and interruptions (red); hover for details.</p>
<h2>Nodes by NodePool</h2>
${stackedChart(poolSeries, times, { yLabel: 'nodes', formatY: (x) => String(Math.round(x)), end, height: 200, markers })}
<h2>Pending pods</h2>
${lineChart(pendingSeries, { yLabel: 'pods', formatY: (x) => String(Math.round(x)), end, height: 180, markers })}
<p class="sub">The most pods pending at once in each sampling period; the longest any pod waited: ${t.maxPendingSeconds}s.</p>
<h2>NodeClaims at the end</h2>
${claimsTable(report)}
<h2>Timeline</h2>
<table><thead><tr><th>At</th><th>Event</th><th>NodeClaim</th><th>Reason</th><th>Detail</th></tr></thead><tbody>
${events
  .map(
    (e) =>
      `<tr><td class="at">${escapeHtml(e.at)}</td><td class="ev-cell"><span class="ev" style="background:${EVENT_COLORS[e.type] ?? '#57606a'}">${e.type}</span></td><td class="claim"><code>${escapeHtml(e.nodeClaim)}</code></td><td>${escapeHtml(e.reason)}</td><td>${escapeHtml(e.detail)}</td></tr>`,
  )
  .join('\n')}
</tbody></table>
${report.violationDetails.length ? `<h2>Violations</h2><ul>${report.violationDetails.map((d) => `<li>${escapeHtml(d.kind)}: ${escapeHtml(d.detail)}</li>`).join('')}</ul>` : ''}
${report.warnings.length ? `<h2>Warnings</h2><ul>${report.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul>` : ''}
</body></html>
`;
}

function claimsTable(report: ScenarioReport): string {
  if (report.nodeClaims.length === 0) return '<p class="sub">None.</p>';
  const rows = report.nodeClaims.map(
    (c) =>
      `<tr><td class="claim"><code>${escapeHtml(c.name)}</code></td><td>${escapeHtml(c.nodePool)}</td><td>${escapeHtml(c.instanceType)}</td><td>${escapeHtml(c.capacityType)}</td><td>${escapeHtml(c.zone)}</td><td class="num">${escapeHtml(formatClaimPrice(c))}</td><td class="num">${c.pods.length}</td></tr>`,
  );
  const note = estimateNote(report.nodeClaims)
    .map((n) => `<p class="sub estimate-note">${escapeHtml(n)} docs/catalog.md, "Spot prices are estimates".</p>`)
    .join('');
  return `${note}<table><thead><tr><th>NodeClaim</th><th>NodePool</th><th>Instance type</th><th>Capacity</th><th>Zone</th><th>$/hour</th><th>Pods</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table>`;
}

function card(key: string, value: string, detail: string, tone = ''): string {
  return `<div class="card ${tone}"><div class="k">${escapeHtml(key)}</div><div class="v">${escapeHtml(value)}</div><div class="d">${escapeHtml(detail)}</div></div>`;
}
