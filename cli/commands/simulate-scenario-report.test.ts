// `simulate --scenario`: progress lines on stderr (TTY-aware, --progress forces them), `pendingOverTime` in the JSON
// and the pending-pods chart and NodeClaim table in the HTML report.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioReport } from '../../shared/sim/scenario/report';
import { loadSimulator } from '../../testkit/karpenter-examples';
import { bufferIO } from '../io';
import { main } from '../main';

const SPOT = join(import.meta.dirname, '..', '..', 'examples', 'scenarios', 'spot-interruption.yaml');

async function run(args: string[], errIsTTY = false) {
  const io = { ...bufferIO(), errIsTTY };
  const buffers = io;
  const code = await main(['simulate', '--scenario', SPOT, ...args], io);
  return { code, stdout: buffers.stdout.join(''), stderr: buffers.stderr.join('') };
}

const PROGRESS = /^scenario spot-interruption: /m;

/** The plain `-o json` run, made once: the first test shows a run's output is the same each time, and three read it. */
let pipedRun: ReturnType<typeof run> | undefined;
const piped = () => {
  pipedRun ??= run(['-o', 'json']);
  return pipedRun;
};

beforeAll(loadSimulator);

describe('simulate --scenario reporting', () => {
  it('writes progress to stderr only: forced by --progress, on by default when stderr is a terminal', async () => {
    const forced = await run(['-o', 'json', '--progress']);
    expect(forced.code).toBe(0);
    expect(forced.stderr).toMatch(/^scenario spot-interruption: \d+ step\(s\) over 1h$/m);
    expect(forced.stderr).toMatch(
      /^scenario spot-interruption: done, 1h simulated in \d+\.\d s wall, \d+ timeline entries$/m,
    );
    expect(forced.stdout).not.toMatch(PROGRESS);
    expect(() => JSON.parse(forced.stdout)).not.toThrow();

    const plain = await piped();
    expect(plain.stderr).not.toMatch(PROGRESS);
    expect(plain.stdout).toBe(forced.stdout);

    const terminal = await run(['-o', 'json'], true);
    expect(terminal.stderr).toMatch(PROGRESS);
    expect(terminal.stdout).toBe(forced.stdout);
  });

  it('refuses --progress without --scenario', async () => {
    const io = bufferIO();
    expect(await main(['simulate', '-f', SPOT, '--progress'], io)).toBe(2);
    expect(io.stderr.join('')).toContain('--progress needs --scenario');
  });

  it('puts pendingOverTime in the JSON: the interruption shows as a peak of pending pods', async () => {
    const report = JSON.parse((await piped()).stdout) as ScenarioReport;
    expect(report.pendingOverTime.map((p) => p.at)).toEqual(report.costOverTime.map((c) => c.at));
    const interrupted = report.timeline.find((e) => e.type === 'Interrupted');
    expect(interrupted?.at).toBe('20m');
    // Pods wait for the first nodes, then the evicted ones wait for the replacement's node (drained at 20m5s, the
    // replacement Ready at 20m46s): peaks in those two samples only, and none at the end.
    expect(report.pendingOverTime.filter((p) => p.peak > 0).map((p) => p.at)).toEqual(['0s', '20m']);
    expect(report.pendingOverTime.find((p) => p.at === '20m')?.peak).toBe(8);
    expect(report.pendingOverTime.at(-1)).toMatchObject({ pending: 0, peak: 0 });
    expect(Object.keys(report)).toEqual(expect.arrayContaining(['nodesOverTime', 'pendingOverTime', 'totals']));
  });

  it('draws pending pods as an inline SVG step line through every sample, and lists NodeClaims unwrapped', async () => {
    const json = JSON.parse((await piped()).stdout) as ScenarioReport;
    const html = (await run(['-o', 'html'])).stdout;
    expect(html).toContain('<h2>Pending pods</h2>');
    const section = html.slice(html.indexOf('<h2>Pending pods</h2>'), html.indexOf('<h2>NodeClaims at the end</h2>'));
    const path = /<path d="([^"]+)" fill="none" stroke="#cf222e"/.exec(section)?.[1] ?? '';
    // A step line: a move to the first sample, then one H and one V per later sample, and a last H to the end.
    expect(path.startsWith('M')).toBe(true);
    expect(path.match(/ V/g)?.length).toBe(json.pendingOverTime.length - 1);
    const ys = [/^M[\d.]+,([\d.]+)/.exec(path)?.[1], ...[...path.matchAll(/V([\d.]+)/g)].map((m) => m[1])].map(Number);
    expect(new Set(ys).size).toBeGreaterThan(1);
    expect(section).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    for (const c of json.nodeClaims) expect(html).toContain(`<td class="claim"><code>${c.name}</code></td>`);
    expect(html).toContain('td.claim,td.ev-cell{white-space:nowrap}');
  });

  it('marks estimated spot prices in the HTML report, with a note that says what they are', async () => {
    const json = JSON.parse((await piped()).stdout) as ScenarioReport;
    const html = (await run(['-o', 'html'])).stdout;
    const estimated = json.nodeClaims.filter((c) => c.priceSource === 'estimate');
    expect(estimated.length).toBeGreaterThan(0);
    expect(estimated.every((c) => c.capacityType === 'spot')).toBe(true);
    for (const c of estimated) expect(html).toContain(`~$${c.pricePerHour.toFixed(4)}`);
    expect(html).toContain(`<p class="sub estimate-note">~ marks ${estimated.length} estimated price(s)`);
  });
});
