import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { makePod } from '../testkit/bed';
import { podsYaml, runNode, solvesOf } from './whole-command';

describe('whole-command rows', () => {
  it("reads each solve's wall and CPU time from simulate's progress lines", () => {
    const stderr = [
      'loaded 5000 pods from pods.yaml',
      'planned 1065 NodeClaim(s) in 1344 ms (945 ms CPU)',
      'planned 3 NodeClaim(s) in 12 ms (10 ms CPU)',
    ].join('\n');
    expect(solvesOf(stderr)).toEqual([
      { wallMs: 1344, cpuMs: 945 },
      { wallMs: 12, cpuMs: 10 },
    ]);
  });

  it("times the end of reading from simulate's first progress line, even when it arrives in pieces", async () => {
    const script =
      "process.stderr.write('lo'); setTimeout(() => process.stderr.write('aded 2000 pods from x.yaml\\n'), 200)";
    const run = await runNode(['-e', script]);
    expect(run.readMs).toBeGreaterThanOrEqual(150);
    expect(run.readMs).toBeLessThanOrEqual(run.wallMs);
  });

  it('writes pods as plain multi-document YAML, without anchors', () => {
    const pod = makePod('a', { cpu: '1', memory: '1Gi' });
    const text = podsYaml([pod, { ...pod, metadata: { ...pod.metadata, name: 'b' } }]);
    expect(text).not.toMatch(/[&*]a\d/);
    expect(text.split('---\n').map((d) => (parse(d) as { metadata: { name: string } }).metadata.name)).toEqual([
      'a',
      'b',
    ]);
  });
});
