// An in-process DynamoDB (dynalite) with the project's table, for integration tests and the local pipeline.
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createTableInput } from './schema';

export interface LocalDynamo {
  client: DynamoDBDocumentClient;
  tableName: string;
  endpoint: string;
  stop(): Promise<void>;
}

export async function startLocalDynamo(tableName = 'karpless-test'): Promise<LocalDynamo> {
  const { default: dynalite } = await import('dynalite');
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const raw = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  await raw.send(new CreateTableCommand(createTableInput(tableName)));
  const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  return {
    client,
    tableName,
    endpoint,
    stop: async () => {
      raw.destroy();
      await new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
    },
  };
}
