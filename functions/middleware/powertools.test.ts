import middy from '@middy/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MetricNames } from '../../shared/metrics';
import { fakeContext } from './fake-context';
import { createObservability, powertools } from './powertools';

describe('powertools', () => {
  let output: string[];
  beforeEach(() => {
    output = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      output.push(String(chunk));
      return true;
    });
  });
  afterEach(() => vi.restoreAllMocks());

  const json = () =>
    output
      .join('')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  it('injects the Lambda context into log lines and flushes EMF metrics with the cluster dimension', async () => {
    const { logger, metrics } = createObservability({ cluster: 'demo', service: 'provisioner' });
    const handler = middy(async () => {
      logger.info('planned', { pods: 2 });
      metrics.addMetric(MetricNames.Launches, 'Count', 3);
      return 'ok';
    }).use(powertools(logger, metrics));
    expect(await handler({}, fakeContext())).toBe('ok');
    const lines = json();
    const log = lines.find((l) => l.message === 'planned');
    expect(log).toMatchObject({
      cluster: 'demo',
      service: 'provisioner',
      function_name: 'karpless-demo-provisioner',
      pods: 2,
    });
    const emf = lines.find((l) => MetricNames.Launches in l);
    expect(emf).toMatchObject({ cluster: 'demo', service: 'provisioner', Launches: 3 });
    const meta = (emf!._aws as { CloudWatchMetrics: { Namespace: string; Dimensions: string[][] }[] })
      .CloudWatchMetrics[0];
    expect(meta?.Namespace).toBe('Karpless');
    expect(meta?.Dimensions[0]).toEqual(expect.arrayContaining(['cluster', 'service']));
  });

  it('still flushes metrics when the handler throws', async () => {
    const { logger, metrics } = createObservability({ cluster: 'demo', service: 'gc' });
    const handler = middy(async () => {
      metrics.addMetric(MetricNames.InsufficientCapacity, 'Count', 1);
      throw new Error('boom');
    }).use(powertools(logger, metrics));
    await expect(handler({}, fakeContext())).rejects.toThrow('boom');
    expect(json().some((l) => MetricNames.InsufficientCapacity in l)).toBe(true);
  });
});
