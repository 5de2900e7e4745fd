import { describe, expect, it } from 'vitest';
import { configFromEnv } from './config';

describe('configFromEnv', () => {
  it('reads the cluster, the queue and defaults', () => {
    const c = configFromEnv({
      KARPLESS_CLUSTER: 'prod',
      KARPLESS_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/1/q.fifo',
    });
    expect(c).toEqual({
      cluster: 'prod',
      queueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/q.fifo',
      region: 'eu-west-1',
      healthPort: 8080,
      timing: { idleMs: 1000, maxMs: 10_000 },
      logLevel: 'INFO',
    });
  });

  it('names every problem', () => {
    expect(() => configFromEnv({ KARPLESS_QUEUE_URL: 'https://sqs.x/q', KARPLESS_BATCH_IDLE_MS: 'soon' })).toThrow(
      /KARPLESS_CLUSTER is required[\s\S]*must be a FIFO queue[\s\S]*KARPLESS_BATCH_IDLE_MS/,
    );
  });
});
