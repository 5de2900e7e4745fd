import { describe, expect, it } from 'vitest';
import { readEnv } from './env';

const BASE = {
  CLUSTER_NAME: 'demo',
  TABLE_NAME: 'karpless-demo',
  QUEUE_URL: 'https://sqs.us-west-2.amazonaws.com/111122223333/karpless-demo-events.fifo',
  AWS_REGION: 'us-west-2',
};

describe('readEnv', () => {
  it('reads the stack-provided variables with defaults for the optional ones', () => {
    const env = readEnv({
      ...BASE,
      TERMINATION_QUEUE_URL: 'https://sqs.us-west-2.amazonaws.com/111122223333/karpless-demo-termination',
      KUBERNETES_VERSION: '1.31',
      REBALANCE: 'interrupt',
      BIND_PODS: 'false',
    });
    expect(env).toMatchObject({
      cluster: 'demo',
      region: 'us-west-2',
      kubernetesVersion: '1.31',
      config: { rebalance: 'interrupt', bindPods: false, solveTimeoutMs: 60_000, iceTtlMs: 180_000 },
    });
    // Binding is opt-in (BIND_PODS=true); without it kube-scheduler binds, as under Karpenter.
    expect(readEnv(BASE).config).toMatchObject({ rebalance: 'record', bindPods: false });
    expect(readEnv({ ...BASE, BIND_PODS: 'true' }).config.bindPods).toBe(true);
  });

  it('reads the NodePools Karpless owns from OWNED_NODEPOOLS, every NodePool without it', () => {
    expect(readEnv({ ...BASE, OWNED_NODEPOOLS: 'general,batch' }).config.ownedNodePools).toEqual(['general', 'batch']);
    expect(readEnv(BASE).config.ownedNodePools).toBeUndefined();
  });

  it("reads the consumed queue's DLQ from DLQ_URL, and leaves it unset without one", () => {
    const url = 'https://sqs.us-west-2.amazonaws.com/111122223333/karpless-demo-events-dlq.fifo';
    expect(readEnv({ ...BASE, DLQ_URL: url }).deadLetterQueueUrl).toBe(url);
    expect(readEnv(BASE).deadLetterQueueUrl).toBeUndefined();
  });

  it('reads the disruption settings from DISRUPTION_SETTINGS, Karpenter defaults without it', () => {
    expect(readEnv(BASE).config.disruption.spotToSpotConsolidation).toBe(false);
    const on = readEnv({ ...BASE, DISRUPTION_SETTINGS: '{"spotToSpotConsolidation":true,"replacementTimeout":"5m"}' });
    expect(on.config.disruption).toMatchObject({ spotToSpotConsolidation: true, replacementTimeoutMs: 300_000 });
    expect(() => readEnv({ ...BASE, DISRUPTION_SETTINGS: '{"spotToSpot":true}' })).toThrow(
      /DISRUPTION_SETTINGS.spotToSpot: unknown setting/,
    );
  });

  it('names every missing or malformed variable', () => {
    expect(() => readEnv({ BIND_PODS: 'yes', REBALANCE: 'ignore' })).toThrow(
      /CLUSTER_NAME is required.*TABLE_NAME is required.*QUEUE_URL is required.*AWS_REGION is required.*BIND_PODS: "yes".*REBALANCE: "ignore"/,
    );
  });
});
