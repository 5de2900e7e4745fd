import { afterEach, describe, expect, it, vi } from 'vitest';
import { captureOutput } from '../../testkit/function-bed';
import { createObservability } from '../middleware';
import { metricFor } from './observability';

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
