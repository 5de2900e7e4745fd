import { describe, expect, it } from 'vitest';
import { bufferIO } from '../io';
import { main } from '../main';
import { parseDuration } from './dev';

describe('karpless dev', () => {
  it('runs the pipeline on manifests and prints the timeline and a clean summary', async () => {
    const io = bufferIO();
    const code = await main(
      ['dev', '-f', 'examples/cluster/web.yaml', '-f', 'examples/cluster/nodepools.yaml', '--seed', '2'],
      io,
    );
    const out = io.stdout.join('');
    expect(code).toBe(0);
    expect(out).toMatch(/pod\(s\) pending in cluster demo/);
    expect(out).toMatch(/PodsPending ×\d+ sent to the FIFO queue/);
    expect(out).toMatch(/instance i-[0-9a-f]+ launched for/);
    expect(out).toMatch(/node ip-[\d-]+\.ec2\.internal registered/);
    expect(out).toMatch(/pod\(s\) bound to ip-/);
    expect(out).toMatch(/pods: +\d+ bound, 0 pending/);
    expect(out).toMatch(/leaks: +0 orphan instance\(s\), 0 duplicate launch\(es\), 0 claim\(s\) without instance/);
  });

  it('stops at --until and fails when pods are still pending then', async () => {
    const io = bufferIO();
    const code = await main(
      ['dev', '-f', 'examples/cluster/web.yaml', '-f', 'examples/cluster/nodepools.yaml', '--until', '10s'],
      io,
    );
    expect(code).toBe(1);
    expect(io.stdout.join('')).toMatch(/\[\+ +10\.0s\] summary/);
    expect(io.stdout.join('')).not.toMatch(/bound to ip-/);
  });

  it('with -v, prints one stamped timeline of events and log records, and why each pod is still pending', async () => {
    const io = bufferIO();
    const argv = ['dev', '-f', 'examples/cluster/web.yaml', '-f', 'examples/cluster/nodepools.yaml', '--until', '10s'];
    expect(await main([...argv, '-v'], io)).toBe(1);
    const out = io.stdout.join('');
    const timeline = (out.split(/\n\[\+ *[\d.]+s\] summary\n/)[0] ?? '').split('\n').filter((line) => line !== '');
    const stamps = timeline.map((line) => Number(line.match(/^\[\+ *([\d.]+)s\] /)?.[1]));
    expect(timeline.filter((_, i) => Number.isNaN(stamps[i]))).toEqual([]);
    expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
    expect(out).toMatch(/\] {5}INFO {2}\[provisioner\] launched nodeClaim=general-\w+ instanceId=i-[0-9a-f]+ /);
    // Ten pods were nominated to claims whose nodes had not joined by 10 s: each says so.
    const reasons = out.match(
      /^ {4}shop\/\S+: Nominated: Pod should schedule on: nodeclaim\/general-\w+ \(at .*\); its node has not joined and taken it yet$/gm,
    );
    expect(reasons).toHaveLength(10);
  });

  it('rejects a bad --until or --seed as usage errors', async () => {
    const io = bufferIO();
    expect(await main(['dev', '-f', 'examples/cluster/web.yaml', '--until', 'soon'], io)).toBe(2);
    expect(await main(['dev', '-f', 'examples/cluster/web.yaml', '--seed', '-1'], io)).toBe(2);
    expect(io.stderr.join('')).toMatch(/--until: "soon" is not a duration/);
    expect(io.stderr.join('')).toMatch(/--seed: "-1"/);
  });

  it('parses durations', () => {
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('10')).toBeUndefined();
    expect(parseDuration('5m later')).toBeUndefined();
  });
});
