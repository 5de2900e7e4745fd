// aws-sdk-client-mock for the price refresh: moto serves neither the Pricing API nor real spot price history.
import { DescribeSpotPriceHistoryCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetProductsCommand, PricingClient } from '@aws-sdk/client-pricing';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readFixture } from '../../events';
import type { PriceTable } from '../../shared/aws/pricing/fetch';
import { gcTickTemplate } from '../../shared/events';
import { makePod } from '../../testkit/bed';
import { captureOutput, functionBed, portsOf } from '../../testkit/function-bed';
import { fakeContext } from '../middleware/fake-context';
import { createHandler, type GcOutput, type PriceRefreshOutput } from './handler';

beforeEach(() => {
  captureOutput();
});
afterEach(() => vi.restoreAllMocks());

describe('gc handler', () => {
  it('ends a claim whose instance vanished and rejects a tick for another cluster', async () => {
    const { t, observability } = functionBed('gc');
    const handler = createHandler(() => portsOf(t), observability);
    t.cluster.addPod(makePod('web-0'));
    await t.settle(60_000);
    const [claim] = await t.store.list({ states: ['Initialized'] });
    await t.cloud.delete(claim?.instanceId ?? '');
    const tick = JSON.parse(readFixture('gc-tick.json')) as unknown;
    const out = (await handler(tick, fakeContext())) as GcOutput;
    expect(out.gc.failedClaims).toEqual([claim?.name]);
    expect((await t.store.get(claim?.name ?? ''))?.state).toBe('Draining');

    const foreign = { ...(tick as object), cluster: 'other' };
    await expect(handler(foreign, fakeContext())).rejects.toThrow(/cluster other/);
    await expect(handler({ v: 1, kind: 'Nope' }, fakeContext())).rejects.toThrow();
  });

  it('refreshes and stores prices on a RefreshPrices tick, and leaves the claims alone', async () => {
    const pricing = mockClient(PricingClient);
    const ec2 = mockClient(EC2Client);
    try {
      const onDemand = (type: string, usd: string) =>
        JSON.stringify({
          product: { attributes: { instanceType: type, operatingSystem: 'Linux' } },
          terms: { OnDemand: { a: { priceDimensions: { b: { unit: 'Hrs', pricePerUnit: { USD: usd } } } } } },
        });
      pricing.on(GetProductsCommand).resolves({ PriceList: [onDemand('m5.large', '0.0960000000')] });
      ec2.on(DescribeSpotPriceHistoryCommand).resolves({
        SpotPriceHistory: [
          { InstanceType: 'm5.large', AvailabilityZone: 'us-east-1a', SpotPrice: '0.0400', Timestamp: new Date() },
        ],
      });
      const stored: PriceTable[] = [];
      const { t, observability } = functionBed('gc');
      const handler = createHandler(
        () => ({
          ...portsOf(t),
          prices: {
            pricing: new PricingClient({ region: 'us-east-1' }),
            ec2: new EC2Client({ region: 'us-east-1' }),
            region: 'us-east-1',
            store: { getPrices: async () => stored.at(-1), putPrices: async (p) => void stored.push(p) },
          },
        }),
        observability,
      );
      t.cluster.addPod(makePod('web-0'));
      await t.settle(60_000);
      const [claim] = await t.store.list({ states: ['Initialized'] });
      await t.cloud.delete(claim?.instanceId ?? '');
      const tick = JSON.parse(
        gcTickTemplate('demo', 'RefreshPrices').replace('<aws.scheduler.scheduled-time>', '2026-11-21T21:00:00Z'),
      ) as unknown;
      const out = (await handler(tick, fakeContext())) as PriceRefreshOutput;
      expect(out.pricesRefreshedAt).toBe(new Date(t.clock.now()).toISOString());
      expect(stored.map((p) => [p.onDemand['m5.large'], p.spot['m5.large']])).toEqual([
        [0.096, { 'us-east-1a': 0.04 }],
      ]);
      // A price tick is not a GC pass: the claim whose instance is gone waits for the next GarbageCollect tick.
      expect((await t.store.get(claim?.name ?? ''))?.state).toBe('Initialized');
    } finally {
      pricing.restore();
      ec2.restore();
    }
  });

  it('refuses a RefreshPrices tick when the function has no price ports', async () => {
    const { t, observability } = functionBed('gc');
    const handler = createHandler(() => portsOf(t), observability);
    const tick = JSON.parse(
      gcTickTemplate('demo', 'RefreshPrices').replace('<aws.scheduler.scheduled-time>', '2026-11-21T21:00:00Z'),
    ) as unknown;
    await expect(handler(tick, fakeContext())).rejects.toThrow(/without price ports/);
  });
});
