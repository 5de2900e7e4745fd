import { describe, expect, it } from 'vitest';
import { jsonLogger } from './log';

function record(fields: Record<string, unknown>, base: Record<string, unknown> = {}): Record<string, unknown> {
  const lines: string[] = [];
  jsonLogger((l) => lines.push(l), base).log('WARN', 'flush failed', fields);
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? '');
}

describe('jsonLogger', () => {
  it('keeps the record message, level and time when a field shares their name', () => {
    const r = record({ message: 'AccessDenied: sqs:SendMessage', level: 'x', time: 'y', queue: 'q' });
    expect(r.message).toBe('flush failed');
    expect(r.level).toBe('WARN');
    expect(Date.parse(String(r.time))).not.toBeNaN();
    expect(r.field_message).toBe('AccessDenied: sqs:SendMessage');
    expect(r.field_level).toBe('x');
    expect(r.field_time).toBe('y');
    expect(r.queue).toBe('q');
  });

  it('renames colliding base fields the same way, and lets a call field override a base field', () => {
    const r = record({ cluster: 'b' }, { cluster: 'a', message: 'base' });
    expect(r.message).toBe('flush failed');
    expect(r.field_message).toBe('base');
    expect(r.cluster).toBe('b');
  });
});
