import { afterEach, describe, expect, it, vi } from 'vitest';
import { captureOutput } from '../../testkit/function-bed';
import { createObservability } from '../middleware';
import { logFor, metricFor } from './observability';

afterEach(() => vi.restoreAllMocks());

describe('metricFor', () => {
  it('adds plain metrics to the invocation blob and emits dimensioned ones on their own', () => {
    const lines = captureOutput();
    const { metrics } = createObservability({ cluster: 'demo', service: 'provisioner' });
    const metric = metricFor(metrics);
    metric('Launches', 2, 'Count');
    metric('Nodes', 3, 'Count', { nodePool: 'default' });
    metrics.publishStoredMetrics();
    const out = lines();
    expect(out.find((l) => 'Nodes' in l)).toMatchObject({ Nodes: 3, nodePool: 'default', cluster: 'demo' });
    expect(out.find((l) => 'Launches' in l)).toMatchObject({ Launches: 2, cluster: 'demo' });
  });
});

describe('logFor', () => {
  it('keeps a field named like a Powertools key under field_<key> instead of dropping it', () => {
    const lines = captureOutput();
    const { logger } = createObservability({ cluster: 'demo', service: 'provisioner' });
    logFor(logger).warn('odd', { message: 'the why', service: 'other', count: 2 });
    const record = lines().find((l) => l.message === 'odd');
    expect(record).toMatchObject({
      service: 'provisioner',
      field_message: 'the why',
      field_service: 'other',
      count: 2,
    });
    expect(lines().some((l) => String(l.message).includes('reserved key'))).toBe(false);
  });
});
