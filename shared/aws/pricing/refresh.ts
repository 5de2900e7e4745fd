// The price refresh and its fallback: live prices go to DynamoDB with their refresh time; when a refresh fails the
// last stored table (or else the embedded catalog) stays in use, and the failure is logged and counted. The GC
// function runs refreshPrices on its 12-hourly RefreshPrices tick (docs/deploy.md, Prices); the other functions read
// what is stored.
// Logger and metrics are callbacks so shared/aws carries no Powertools dependency.
import type { EC2Client } from '@aws-sdk/client-ec2';
import type { PricingClient } from '@aws-sdk/client-pricing';
import type { Catalog, InstanceTypeInfo, WindowsPrices } from '../../catalog/types';
import type { MetricName } from '../../metrics';
import { fetchOnDemandPrices, fetchSpotPrices, type PriceTable } from './fetch';

export interface PriceStore {
  getPrices(): Promise<PriceTable | undefined>;
  putPrices(table: PriceTable): Promise<void>;
}

export interface PriceRefreshDeps {
  pricing: PricingClient;
  ec2: EC2Client;
  region: string;
  store: PriceStore;
  now: () => number;
  log: (level: 'info' | 'warn', message: string, detail?: Record<string, unknown>) => void;
  metric: (name: Extract<MetricName, 'PriceRefreshSucceeded' | 'PriceRefreshFailed'>, value: number) => void;
}

/** Refreshes both price kinds and stores them. Returns the new table, or undefined (logged, counted) on failure. */
export async function refreshPrices(d: PriceRefreshDeps): Promise<PriceTable | undefined> {
  try {
    const [onDemand, spot, windows] = await Promise.all([
      fetchOnDemandPrices(d.pricing, d.region),
      fetchSpotPrices(d.ec2, new Date(d.now())),
      windowsPrices(d),
    ]);
    if (Object.keys(onDemand).length === 0)
      throw new Error(`the Pricing API returned no on-demand prices for ${d.region}`);
    const table: PriceTable = {
      region: d.region,
      refreshedAt: new Date(d.now()).toISOString(),
      onDemand,
      spot,
      ...(windows ? { windows } : {}),
    };
    await d.store.putPrices(table);
    d.metric('PriceRefreshSucceeded', 1);
    d.log('info', 'prices refreshed', {
      region: d.region,
      onDemandTypes: Object.keys(onDemand).length,
      spotTypes: Object.keys(spot).length,
      windowsTypes: Object.keys(windows?.onDemand ?? {}).length,
    });
    return table;
  } catch (err) {
    d.metric('PriceRefreshFailed', 1);
    d.log('warn', 'price refresh failed; keeping the last stored prices or the embedded catalog', {
      region: d.region,
      error: (err as Error).message,
    });
    return undefined;
  }
}

/** The Windows (License Included) prices, the catalog refresh's second price set. A failure here leaves them out
 * (logged) rather than failing the Linux prices every node needs: Windows offerings then keep the catalog's. */
async function windowsPrices(d: PriceRefreshDeps): Promise<PriceTable['windows']> {
  try {
    const [onDemand, spot] = await Promise.all([
      fetchOnDemandPrices(d.pricing, d.region, 'Windows'),
      fetchSpotPrices(d.ec2, new Date(d.now()), 'Windows'),
    ]);
    return Object.keys(onDemand).length ? { onDemand, spot } : undefined;
  } catch (err) {
    d.log('warn', 'Windows price refresh failed; Windows offerings keep the stored or embedded prices', {
      region: d.region,
      error: (err as Error).message,
    });
    return undefined;
  }
}

/** A type's Windows prices from the table, as the catalog refresh builds them: x86 only, with an on-demand price,
 * spot only in the type's zones. Falls back to the catalog's. */
function windowsOf(t: InstanceTypeInfo, table: PriceTable): WindowsPrices | undefined {
  const od = table.windows?.onDemand[t.name];
  if (t.arch !== 'amd64' || od === undefined) return t.windows;
  const live = table.windows?.spot[t.name] ?? {};
  const spotPrice = Object.fromEntries(t.zones.filter((z) => live[z] !== undefined).map((z) => [z, live[z] as number]));
  return { onDemandPrice: od, spotPrice };
}

/** The catalog with live prices laid over it; types the table does not price keep their embedded prices. */
export function withPrices(catalog: Catalog, table: PriceTable | undefined): Catalog {
  if (!table || table.region !== catalog.region) return catalog;
  return {
    ...catalog,
    source: `${catalog.source} + live prices ${table.refreshedAt}`,
    types: catalog.types.map((t) => {
      const od = table.onDemand[t.name];
      const spot = table.spot[t.name];
      const windows = windowsOf(t, table);
      if (od === undefined && spot === undefined && windows === t.windows) return t;
      return {
        ...t,
        onDemandPrice: od ?? t.onDemandPrice,
        spotPrice: spot ? { ...spot } : t.spotPrice,
        ...(windows ? { windows } : {}),
      };
    }),
  };
}

/** Prices to use now: the stored table when present, else none (the embedded catalog's), with a log line. */
export async function currentPrices(store: PriceStore, log: PriceRefreshDeps['log']): Promise<PriceTable | undefined> {
  try {
    return await store.getPrices();
  } catch (err) {
    log('warn', 'reading stored prices failed; using the embedded catalog', { error: (err as Error).message });
    return undefined;
  }
}
