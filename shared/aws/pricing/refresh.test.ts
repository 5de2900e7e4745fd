// aws-sdk-client-mock: the Pricing API and real spot price history are not served by moto.
import { DescribeSpotPriceHistoryCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetProductsCommand, type GetProductsCommandInput, PricingClient } from '@aws-sdk/client-pricing';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeInstanceType } from '../../../testkit/instance-types';
import type { Catalog } from '../../catalog/types';
import { type LocalDynamo, startLocalDynamo } from '../dynamo/local';
import { DynamoPriceStore } from '../dynamo/prices';
import { currentPrices, type PriceRefreshDeps, refreshPrices, withPrices } from './refresh';

const product = (type: string, usd: string) =>
  JSON.stringify({
    product: { attributes: { instanceType: type, operatingSystem: 'Linux' } },
    terms: {
      OnDemand: {
        'X.JRTCKXETXF': { priceDimensions: { 'X.JRTCKXETXF.6YS6EN2CT7': { unit: 'Hrs', pricePerUnit: { USD: usd } } } },
      },
    },
  });

/** Which operating system a GetProducts call asks prices for. */
const osOf = (input: GetProductsCommandInput) => input.Filters?.find((f) => f.Field === 'operatingSystem')?.Value;

let db: LocalDynamo;
const ec2 = mockClient(EC2Client);
const pricing = mockClient(PricingClient);
beforeAll(async () => {
  db = await startLocalDynamo('prices');
});
afterAll(async () => {
  await db.stop();
  ec2.restore();
  pricing.restore();
});
afterEach(() => {
  ec2.reset();
  pricing.reset();
});

function deps(cluster: string) {
  const logs: [string, string, Record<string, unknown> | undefined][] = [];
  const metrics: [string, number][] = [];
  const store = new DynamoPriceStore({ client: db.client, tableName: db.tableName, cluster });
  return {
    logs,
    metrics,
    store,
    d: <PriceRefreshDeps>{
      pricing: new PricingClient({ region: 'us-east-1' }),
      ec2: new EC2Client({ region: 'us-east-1' }),
      region: 'us-east-1',
      store,
      now: () => Date.parse('2026-01-01T12:00:00Z'),
      log: (level, message, detail) => void logs.push([level, message, detail]),
      metric: (name, value) => void metrics.push([name, value]),
    },
  };
}

describe('price refresh', () => {
  it('stores on-demand and the newest spot prices with the refresh time', async () => {
    pricing.on(GetProductsCommand).callsFake((input: GetProductsCommandInput) => {
      if (osOf(input) === 'Windows') return { PriceList: [] };
      return input.NextToken
        ? { PriceList: [product('c5.large', '0.0850000000'), product('t3.nano', '0.0000000000')] }
        : { PriceList: [product('m5.large', '0.0960000000')], NextToken: 'p2' };
    });
    ec2.on(DescribeSpotPriceHistoryCommand, { ProductDescriptions: ['Windows'] }).resolves({ SpotPriceHistory: [] });
    ec2.on(DescribeSpotPriceHistoryCommand, { ProductDescriptions: ['Linux/UNIX'] }).resolves({
      SpotPriceHistory: [
        {
          InstanceType: 'm5.large',
          AvailabilityZone: 'us-east-1a',
          SpotPrice: '0.0400',
          Timestamp: new Date('2026-01-01T11:00:00Z'),
        },
        {
          InstanceType: 'm5.large',
          AvailabilityZone: 'us-east-1a',
          SpotPrice: '0.0300',
          Timestamp: new Date('2026-01-01T10:00:00Z'),
        },
        {
          InstanceType: 'm5.large',
          AvailabilityZone: 'us-east-1b',
          SpotPrice: '0.0410',
          Timestamp: new Date('2026-01-01T09:00:00Z'),
        },
      ],
    });
    const { d, store, metrics } = deps('p1');
    const table = await refreshPrices(d);
    expect(table).toEqual({
      region: 'us-east-1',
      refreshedAt: '2026-01-01T12:00:00.000Z',
      onDemand: { 'm5.large': 0.096, 'c5.large': 0.085 },
      spot: { 'm5.large': { 'us-east-1a': 0.04, 'us-east-1b': 0.041 } },
    });
    expect(await store.getPrices()).toEqual(table);
    expect(metrics).toEqual([['PriceRefreshSucceeded', 1]]);
    expect(pricing.commandCalls(GetProductsCommand)[0]?.args[0].input.Filters).toContainEqual({
      Type: 'TERM_MATCH',
      Field: 'regionCode',
      Value: 'us-east-1',
    });
    expect(
      ec2.commandCalls(DescribeSpotPriceHistoryCommand).map((c) => c.args[0].input.ProductDescriptions?.[0]),
    ).toEqual(['Linux/UNIX', 'Windows']);
  });

  it('stores the Windows (License Included) prices beside the Linux ones, as `catalog refresh` reads them', async () => {
    pricing
      .on(GetProductsCommand)
      .callsFake((input: GetProductsCommandInput) =>
        osOf(input) === 'Windows'
          ? { PriceList: [product('m5.large', '0.1880000000')] }
          : { PriceList: [product('m5.large', '0.0960000000')] },
      );
    ec2.on(DescribeSpotPriceHistoryCommand, { ProductDescriptions: ['Linux/UNIX'] }).resolves({
      SpotPriceHistory: [{ InstanceType: 'm5.large', AvailabilityZone: 'us-east-1a', SpotPrice: '0.04' }],
    });
    ec2.on(DescribeSpotPriceHistoryCommand, { ProductDescriptions: ['Windows'] }).resolves({
      SpotPriceHistory: [{ InstanceType: 'm5.large', AvailabilityZone: 'us-east-1a', SpotPrice: '0.13' }],
    });
    const { d, store } = deps('p4');
    const table = await refreshPrices(d);
    expect(table?.windows).toEqual({ onDemand: { 'm5.large': 0.188 }, spot: { 'm5.large': { 'us-east-1a': 0.13 } } });
    expect(table?.onDemand).toEqual({ 'm5.large': 0.096 });
    expect(await store.getPrices()).toEqual(table);
    // The Windows filter asks for License Included, shared tenancy, as the catalog refresh does.
    const windowsFilters = pricing
      .commandCalls(GetProductsCommand)
      .map((c) => c.args[0].input)
      .find((i) => osOf(i) === 'Windows')?.Filters;
    expect(windowsFilters).toContainEqual({ Type: 'TERM_MATCH', Field: 'licenseModel', Value: 'No License required' });
  });

  it('keeps the Linux prices when the Windows ones cannot be read, and says so', async () => {
    pricing.on(GetProductsCommand).callsFake((input: GetProductsCommandInput) => {
      if (osOf(input) === 'Windows') throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
      return { PriceList: [product('m5.large', '0.0960000000')] };
    });
    ec2.on(DescribeSpotPriceHistoryCommand).resolves({ SpotPriceHistory: [] });
    const { d, logs, metrics } = deps('p5');
    const table = await refreshPrices(d);
    expect(table?.onDemand).toEqual({ 'm5.large': 0.096 });
    expect(table?.windows).toBeUndefined();
    expect(metrics).toEqual([['PriceRefreshSucceeded', 1]]);
    expect(logs.find((l) => l[0] === 'warn')?.[1]).toContain('Windows price refresh failed');
  });

  it('falls back on failure with a log line and a metric, keeping what was stored', async () => {
    pricing.on(GetProductsCommand).rejects(Object.assign(new Error('denied'), { name: 'AccessDeniedException' }));
    ec2.on(DescribeSpotPriceHistoryCommand).resolves({ SpotPriceHistory: [] });
    const { d, store, logs, metrics } = deps('p2');
    expect(await refreshPrices(d)).toBeUndefined();
    expect(await store.getPrices()).toBeUndefined();
    expect(metrics).toEqual([['PriceRefreshFailed', 1]]);
    expect(logs[0]?.[0]).toBe('warn');
    expect(logs[0]?.[1]).toContain('embedded catalog');
    expect(logs[0]?.[2]).toMatchObject({ error: 'denied' });
  });

  it('treats an empty price list as a failure', async () => {
    pricing.on(GetProductsCommand).resolves({ PriceList: [] });
    ec2.on(DescribeSpotPriceHistoryCommand).resolves({ SpotPriceHistory: [] });
    const { d, metrics } = deps('p3');
    expect(await refreshPrices(d)).toBeUndefined();
    expect(metrics).toEqual([['PriceRefreshFailed', 1]]);
  });

  it('lays live prices over the catalog and leaves unpriced types alone', async () => {
    const m5 = makeInstanceType('m5.large', { onDemand: 0.1 }).info;
    const c5 = makeInstanceType('c5.large', { onDemand: 0.2 }).info;
    const catalog: Catalog = { region: 'us-east-1', zones: [], generatedAt: '', source: 'embedded', types: [m5, c5] };
    const out = withPrices(catalog, {
      region: 'us-east-1',
      refreshedAt: '2026-01-01T12:00:00.000Z',
      onDemand: { 'm5.large': 0.096 },
      spot: { 'm5.large': { 'us-east-1a': 0.04 } },
    });
    expect(out.types[0]).toMatchObject({ onDemandPrice: 0.096, spotPrice: { 'us-east-1a': 0.04 } });
    expect(out.types[1]).toBe(c5);
    expect(withPrices(catalog, undefined)).toBe(catalog);
    expect(withPrices(catalog, { region: 'eu-west-1', refreshedAt: '', onDemand: { 'm5.large': 1 }, spot: {} })).toBe(
      catalog,
    );
  });

  it("lays live Windows prices over the x86 types only, spot in their zones, and keeps the catalog's otherwise", async () => {
    const m5 = {
      ...makeInstanceType('m5.large', { onDemand: 0.1, zones: ['us-east-1a', 'us-east-1b'] }).info,
      windows: { onDemandPrice: 0.2, spotPrice: { 'us-east-1a': 0.1 } },
    };
    const m6g = makeInstanceType('m6g.large', { arch: 'arm64', onDemand: 0.08 }).info;
    const c5 = {
      ...makeInstanceType('c5.large', { onDemand: 0.09 }).info,
      windows: { onDemandPrice: 0.18, spotPrice: {} },
    };
    const catalog: Catalog = {
      region: 'us-east-1',
      zones: [],
      generatedAt: '',
      source: 'embedded',
      types: [m5, m6g, c5],
    };
    const out = withPrices(catalog, {
      region: 'us-east-1',
      refreshedAt: '2026-01-01T12:00:00.000Z',
      onDemand: {},
      spot: {},
      windows: {
        onDemand: { 'm5.large': 0.192, 'm6g.large': 0.17 },
        spot: { 'm5.large': { 'us-east-1a': 0.11, 'us-east-1f': 0.01 } },
      },
    });
    expect(out.types[0]?.windows).toEqual({ onDemandPrice: 0.192, spotPrice: { 'us-east-1a': 0.11 } });
    expect(out.types[0]?.onDemandPrice).toBe(0.1);
    expect(out.types[1]).toBe(m6g);
    expect(out.types[2]).toBe(c5);
  });

  it('reads stored prices, and says so when it cannot', async () => {
    const logs: string[] = [];
    const failing = { getPrices: async () => Promise.reject(new Error('boom')), putPrices: async () => {} };
    expect(await currentPrices(failing, (_l, m) => void logs.push(m))).toBeUndefined();
    expect(logs[0]).toContain('embedded catalog');
  });
});
