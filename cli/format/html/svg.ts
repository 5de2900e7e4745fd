// Small inline-SVG charts for self-contained reports: step lines over time and stacked step areas, with axes in
// hours and dollars. No scripts, no external assets.

export interface Series {
  name: string;
  color: string;
  /** [seconds from start, value] in time order. */
  points: [number, number][];
  dashed?: boolean;
}

export interface Marker {
  at: number;
  color: string;
  label: string;
}

export interface ChartOptions {
  width?: number;
  height?: number;
  yLabel: string;
  formatY: (v: number) => string;
  /** Seconds; the x axis runs from 0 to this. */
  end: number;
  markers?: Marker[];
}

const PAD = { left: 64, right: 16, top: 12, bottom: 36 };

export const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function formatClock(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return h > 0 ? `${h}h${m ? `${String(m).padStart(2, '0')}m` : ''}` : `${m}m`;
}

/** "Nice" tick spacing: 1, 2 or 5 times a power of ten, giving about `count` ticks. */
function niceStep(range: number, count: number): number {
  const raw = range / Math.max(1, count);
  const p = 10 ** Math.floor(Math.log10(raw || 1));
  const f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

function timeStep(end: number): number {
  for (const s of [60, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400]) if (end / s <= 8) return s;
  return 86400 * Math.ceil(end / 86400 / 8);
}

function frame(o: ChartOptions, yMax: number): { svg: string[]; x: (t: number) => number; y: (v: number) => number } {
  const width = o.width ?? 880;
  const height = o.height ?? 240;
  const plotW = width - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom;
  const x = (t: number): number => PAD.left + (o.end > 0 ? (t / o.end) * plotW : 0);
  const y = (v: number): number => PAD.top + plotH - (yMax > 0 ? (v / yMax) * plotH : 0);
  const svg = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="100%" role="img">`,
    `<rect x="${PAD.left}" y="${PAD.top}" width="${plotW}" height="${plotH}" fill="#fafbfc" stroke="#d0d7de"/>`,
  ];
  const ystep = niceStep(yMax, 5);
  for (let v = 0; v <= yMax + 1e-9; v += ystep) {
    svg.push(
      `<line x1="${PAD.left}" x2="${PAD.left + plotW}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#eaeef2"/>`,
      `<text x="${PAD.left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" class="tick">${escapeHtml(o.formatY(v))}</text>`,
    );
  }
  const tstep = timeStep(o.end);
  for (let t = 0; t <= o.end; t += tstep) {
    svg.push(
      `<line x1="${x(t).toFixed(1)}" x2="${x(t).toFixed(1)}" y1="${PAD.top + plotH}" y2="${PAD.top + plotH + 4}" stroke="#8c959f"/>`,
      `<text x="${x(t).toFixed(1)}" y="${PAD.top + plotH + 18}" text-anchor="middle" class="tick">${formatClock(t)}</text>`,
    );
  }
  svg.push(
    `<text x="14" y="${PAD.top + plotH / 2}" transform="rotate(-90 14 ${PAD.top + plotH / 2})" text-anchor="middle" class="axis">${escapeHtml(o.yLabel)}</text>`,
  );
  for (const m of o.markers ?? []) {
    svg.push(
      `<line x1="${x(m.at).toFixed(1)}" x2="${x(m.at).toFixed(1)}" y1="${PAD.top}" y2="${PAD.top + plotH}" stroke="${m.color}" stroke-opacity="0.5" stroke-dasharray="2 3"><title>${escapeHtml(m.label)}</title></line>`,
    );
  }
  return { svg, x, y };
}

const stepPath = (
  points: [number, number][],
  x: (t: number) => number,
  y: (v: number) => number,
  end: number,
): string => {
  if (points.length === 0) return '';
  const parts: string[] = [];
  points.forEach(([t, v], i) => {
    if (i === 0) parts.push(`M${x(t).toFixed(1)},${y(v).toFixed(1)}`);
    else parts.push(`H${x(t).toFixed(1)}`, `V${y(v).toFixed(1)}`);
  });
  parts.push(`H${x(end).toFixed(1)}`);
  return parts.join(' ');
};

function legend(series: { name: string; color: string; dashed?: boolean }[]): string {
  return `<div class="legend">${series
    .map(
      (s) =>
        `<span><svg width="22" height="10"><line x1="0" x2="22" y1="5" y2="5" stroke="${s.color}" stroke-width="3"${s.dashed ? ' stroke-dasharray="5 3"' : ''}/></svg>${escapeHtml(s.name)}</span>`,
    )
    .join('')}</div>`;
}

/** Step lines (a value holds until the next sample). */
export function lineChart(series: Series[], o: ChartOptions): string {
  const yMax = Math.max(0, ...series.flatMap((s) => s.points.map(([, v]) => v))) * 1.1 || 1;
  const { svg, x, y } = frame(o, yMax);
  for (const s of series) {
    svg.push(
      `<path d="${stepPath(s.points, x, y, o.end)}" fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
    );
  }
  svg.push('</svg>');
  return legend(series) + svg.join('');
}

/** Stacked step areas: each series sits on top of the ones before it. */
export function stackedChart(series: Series[], times: number[], o: ChartOptions): string {
  const totals = times.map((_, i) => series.reduce((sum, s) => sum + (s.points[i]?.[1] ?? 0), 0));
  const yMax = Math.max(1, ...totals) * 1.1;
  const { svg, x, y } = frame(o, yMax);
  const base = times.map(() => 0);
  for (const s of series) {
    const top = times.map((_, i) => (base[i] as number) + (s.points[i]?.[1] ?? 0));
    const upper = stepPath(
      times.map((t, i) => [t, top[i] as number]),
      x,
      y,
      o.end,
    );
    // Back along the base, right to left, one step per sample.
    const lower: string[] = [`V${y(base[base.length - 1] ?? 0).toFixed(1)}`];
    for (let i = times.length - 1; i >= 0; i--) {
      lower.push(`H${x(times[i] as number).toFixed(1)}`);
      if (i > 0) lower.push(`V${y(base[i - 1] as number).toFixed(1)}`);
    }
    lower.push('Z');
    svg.push(`<path d="${upper} ${lower.join(' ')}" fill="${s.color}" fill-opacity="0.75" stroke="${s.color}"/>`);
    top.forEach((v, i) => {
      base[i] = v;
    });
  }
  svg.push('</svg>');
  return legend(series) + svg.join('');
}
