import { describe, expect, it } from 'vitest';
import { capDecision, DECISION_BUDGET_BYTES } from './decision-size';
import type { DecisionRecord } from './nodeclaim';

const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v)).length;

const record = (detail: Record<string, unknown>, nodeClaims = ['default-a']): DecisionRecord => ({
  id: 'd1',
  cluster: 'c',
  at: '2026-01-01T00:00:00.000Z',
  kind: 'Provision',
  nodeClaims,
  summary: 'placed pods',
  detail,
});

const podNames = (n: number) =>
  Array.from({ length: n }, (_, i) => `team-namespace/web-7d9f8c6b5-${String(i).padStart(6, '0')}`);
const alternative = (i: number) => ({
  instanceType: `m5.${i}xlarge`,
  zone: 'us-east-1a',
  capacityType: 'spot',
  price: i,
});

describe('capDecision', () => {
  it('returns a record under the budget as it is', () => {
    const r = record({ claims: [{ name: 'default-a', pods: podNames(10) }] });
    expect(capDecision(r)).toBe(r);
  });

  it('cuts the longest lists from the tail to fit, counting what each lost', () => {
    const pods = podNames(20_000);
    const moves = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`node-${i}`, podNames(100)]));
    const alternatives = Array.from({ length: 4 }, (_, i) => alternative(i));
    const r = record({ trigger: 'PodsPending', claims: [{ name: 'default-a', pods, alternatives }], moves });
    expect(bytes(r)).toBeGreaterThan(DECISION_BUDGET_BYTES);

    const capped = capDecision(r);
    expect(bytes(capped)).toBeLessThanOrEqual(DECISION_BUDGET_BYTES);
    const claim = (capped.detail.claims as { pods: string[]; alternatives: unknown[] }[])[0];
    const kept = claim?.pods ?? [];
    // The head survives, in order; the count says exactly how many went.
    expect(kept).toEqual(pods.slice(0, kept.length));
    expect(kept.length).toBeGreaterThan(1000);
    expect(capped.truncated).toEqual({ 'detail.claims[0].pods': pods.length - kept.length });
    // What was small enough is untouched, and the input is not changed.
    expect(claim?.alternatives).toEqual(alternatives);
    expect(capped.detail.moves).toEqual(moves);
    expect(capped.detail.trigger).toBe('PodsPending');
    expect((r.detail.claims as { pods: string[] }[])[0]?.pods).toHaveLength(20_000);
  });

  it('cuts several lists when one is not enough, and the claim list itself last of all', () => {
    const nodeClaims = Array.from({ length: 400 }, (_, i) => `default-${String(i).padStart(5, '0')}`);
    const r = record({ a: podNames(300), b: podNames(300) }, nodeClaims);
    const capped = capDecision(r, 20_000);
    expect(bytes(capped)).toBeLessThanOrEqual(20_000);
    const t = capped.truncated ?? {};
    expect((capped.detail.a as string[]).length + (t['detail.a'] ?? 0)).toBe(300);
    expect((capped.detail.b as string[]).length + (t['detail.b'] ?? 0)).toBe(300);
    expect(capped.nodeClaims.length + (t.nodeClaims ?? 0)).toBe(400);
    expect(capped.nodeClaims).toEqual(nodeClaims.slice(0, capped.nodeClaims.length));
  });

  it('cuts long strings once lists are down to one element, and drops the detail only as a last resort', () => {
    const long = 'x'.repeat(50_000);
    const capped = capDecision(record({ reason: long, blockers: [long] }), 10_000);
    expect(bytes(capped)).toBeLessThanOrEqual(10_000);
    expect(capped.truncated?.['detail.reason']).toBeGreaterThan(0);
    expect((capped.detail.reason as string).length + (capped.truncated?.['detail.reason'] ?? 0)).toBe(50_000);

    const keys = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`key-${i}`, i]));
    const dropped = capDecision(record(keys), 5_000);
    expect(bytes(dropped)).toBeLessThanOrEqual(5_000);
    expect(dropped.detail).toEqual({});
    expect(dropped.truncated).toEqual({ detail: 2000 });
    expect(dropped.summary).toBe('placed pods');
  });
});
