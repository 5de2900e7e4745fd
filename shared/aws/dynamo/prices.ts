// The price table as one item (PK cluster, SK PRICES#current). ~700 types × a few zones, twice (Linux, and Windows
// for the x86 types), stays well under 400 KB.
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { PriceTable } from '../pricing/fetch';
import type { PriceStore } from '../pricing/refresh';
import { ENTITY_ATTRIBUTE, Entity, keys, PK, SK } from './schema';

export class DynamoPriceStore implements PriceStore {
  constructor(private readonly o: { client: DynamoDBDocumentClient; tableName: string; cluster: string }) {}

  async getPrices(): Promise<PriceTable | undefined> {
    const out = await this.o.client.send(
      new GetCommand({ TableName: this.o.tableName, Key: { [PK]: keys.cluster(this.o.cluster), [SK]: keys.prices } }),
    );
    if (!out.Item) return undefined;
    const { region, refreshedAt, onDemand, spot, windows } = out.Item as PriceTable;
    return { region, refreshedAt, onDemand, spot, ...(windows ? { windows } : {}) };
  }

  async putPrices(table: PriceTable): Promise<void> {
    await this.o.client.send(
      new PutCommand({
        TableName: this.o.tableName,
        Item: { ...table, [PK]: keys.cluster(this.o.cluster), [SK]: keys.prices, [ENTITY_ATTRIBUTE]: Entity.Prices },
      }),
    );
  }
}
