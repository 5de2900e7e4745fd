import { describe, expect, it } from 'vitest';
import { validationProblems } from '../../testkit/validation';
import { isClusterMessage, parseControlMessage } from './control';

const base = { v: 1, cluster: 'demo', at: '2026-11-21T21:00:00Z' };
const parse = (value: unknown) => parseControlMessage(JSON.stringify(value), { source: 'msg 1' });

const problems = (value: unknown): string[] => validationProblems(() => parse(value));

describe('parseControlMessage', () => {
  it('reads a forwarder batch and keeps only known ref fields', () => {
    const msg = parse({ ...base, kind: 'PodsPending', refs: [{ namespace: 'a', name: 'p', uid: 'u', extra: 1 }] });
    expect(msg).toEqual({
      ...base,
      at: '2026-11-21T21:00:00.000Z',
      kind: 'PodsPending',
      refs: [{ namespace: 'a', name: 'p', uid: 'u' }],
    });
    expect(isClusterMessage(msg)).toBe(true);
  });

  it('keeps the kind of a ref (NodePoolChanged carries NodePools and EC2NodeClasses)', () => {
    const msg = parse({ ...base, kind: 'NodePoolChanged', refs: [{ kind: 'EC2NodeClass', name: 'default' }] });
    expect(msg).toMatchObject({ refs: [{ kind: 'EC2NodeClass', name: 'default' }] });
    expect(problems({ ...base, kind: 'NodePoolChanged', refs: [{ kind: 7, name: 'default' }] })).toEqual([
      'msg 1: refs[0].kind: expected a non-empty string, got number 7',
    ]);
  });

  it('reads sweep and terminate messages', () => {
    expect(parse({ ...base, kind: 'Sweep' }).kind).toBe('Sweep');
    const t = parse({ ...base, kind: 'Terminate', nodeClaim: 'default-abc' });
    expect(t).toMatchObject({ kind: 'Terminate', nodeClaim: 'default-abc' });
    expect(isClusterMessage(t)).toBe(false);
  });

  it('reads a disruption re-check with its due time', () => {
    const due = parse({ ...base, kind: 'DisruptionDue', at: '2026-11-21T21:00:15Z' });
    expect(due).toEqual({ v: 1, cluster: 'demo', kind: 'DisruptionDue', at: '2026-11-21T21:00:15.000Z' });
    expect(isClusterMessage(due)).toBe(false);
    expect(problems({ v: 1, cluster: 'demo', kind: 'DisruptionDue' })).toEqual([
      'msg 1: at: required string is missing',
    ]);
  });

  it('names the source for a body that is not JSON', () => {
    expect(() => parseControlMessage('{nope', { source: 'msg 9' })).toThrow(/^msg 9: body is not valid JSON/);
  });

  it('rejects another version', () => {
    expect(problems({ ...base, v: 2, kind: 'Sweep' })).toEqual(['msg 1: v: unsupported version 2 (expected 1)']);
  });

  it('lists every missing field at once', () => {
    expect(problems({ v: 1, kind: 'Terminate' })).toEqual([
      'msg 1: cluster: required string is missing',
      'msg 1: at: required string is missing',
    ]);
    expect(problems({ ...base, kind: 'Terminate' })).toEqual(['msg 1: nodeClaim: required string is missing']);
  });

  it('rejects an unknown kind, listing the known ones', () => {
    expect(problems({ ...base, kind: 'PodsDeleted', refs: [] })[0]).toBe(
      'msg 1: kind: unknown kind "PodsDeleted" (expected one of: PodsPending, NodeChanged, NodePoolChanged, NodeClaimDeleted, Sweep, Terminate, DisruptionDue)',
    );
  });

  it('names the ref path of a bad ref', () => {
    expect(problems({ ...base, kind: 'NodeChanged', refs: [{ name: 'n' }, { name: 42 }, 'x'] })).toEqual([
      'msg 1: refs[1].name: expected a non-empty string, got number 42',
      'msg 1: refs[2]: expected an object, got "x"',
    ]);
    expect(problems({ ...base, kind: 'NodeChanged' })).toEqual(['msg 1: refs: required array is missing']);
  });

  it('rejects a bad timestamp and a body that is not an object', () => {
    expect(problems({ ...base, at: 'yesterday', kind: 'Sweep' })).toEqual([
      'msg 1: at: expected a timestamp, got "yesterday"',
    ]);
    expect(problems([1, 2])).toEqual(['msg 1: (body): expected an object, got an array']);
  });
});
