// NodeClaimStore on DynamoDB. Every write that changes a claim is conditional on the version the caller read, so a
// lost race surfaces as ConflictError and nothing is overwritten; the state machine is checked before any write.
import {
  BatchWriteCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { capDecision, DECISION_BUDGET_BYTES } from '../../api/decision-size';
import { assertTransition, type DecisionRecord, type NodeClaim, type NodeClaimState } from '../../api/nodeclaim';
import { parseSweepCursor, type SweepCursor } from '../../api/sweep-cursor';
import type { UnavailableOffering } from '../../catalog/types';
import { ConflictError } from '../../errors';
import { type ClaimFilter, type Clock, type NodeClaimStore, systemClock } from '../../ports';
import { dynamoDocumentClient } from '../clients';
import {
  claimToItem,
  decisionToItems,
  type Item,
  itemToClaim,
  itemToDecision,
  itemToOffering,
  offeringToItem,
} from './codec';
import { isConditionFailure, isItemTooLarge } from './errors';
import {
  ENTITY_ATTRIBUTE,
  Entity,
  INSTANCE_ID_ATTRIBUTE,
  INSTANCE_ID_INDEX,
  keys,
  PK,
  SK,
  TTL_ATTRIBUTE,
  VERSION_ATTRIBUTE,
} from './schema';

export interface DynamoStoreOptions {
  tableName: string;
  cluster: string;
  client?: DynamoDBDocumentClient;
  clock?: Clock;
}

/** Fields a patch may never change: identity, the lock counter, and state (only `transition` moves it). */
const IMMUTABLE: readonly (keyof NodeClaim)[] = ['name', 'uid', 'cluster', 'version', 'state', 'createdAt'];

export class DynamoNodeClaimStore implements NodeClaimStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly table: string;
  private readonly cluster: string;
  private readonly clock: Clock;

  constructor(o: DynamoStoreOptions) {
    this.client = o.client ?? dynamoDocumentClient();
    this.table = o.tableName;
    this.cluster = o.cluster;
    this.clock = o.clock ?? systemClock;
  }

  async create(claim: NodeClaim): Promise<NodeClaim> {
    const stored: NodeClaim = {
      ...claim,
      cluster: this.cluster,
      stateTimes: { ...claim.stateTimes, [claim.state]: claim.stateTimes[claim.state] ?? claim.createdAt },
    };
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: claimToItem(this.cluster, stored),
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': PK },
        }),
      );
    } catch (err) {
      if (isConditionFailure(err)) throw new ConflictError(`NodeClaim ${claim.name} already exists`);
      throw err;
    }
    return stored;
  }

  async get(name: string): Promise<NodeClaim | undefined> {
    const out = await this.client.send(
      new GetCommand({
        TableName: this.table,
        Key: { [PK]: keys.cluster(this.cluster), [SK]: keys.nodeClaim(name) },
        ConsistentRead: true,
      }),
    );
    return out.Item ? itemToClaim(out.Item) : undefined;
  }

  async list(filter: ClaimFilter = {}): Promise<NodeClaim[]> {
    const names: Record<string, string> = { '#pk': PK, '#sk': SK };
    const values: Record<string, unknown> = {
      ':pk': keys.cluster(this.cluster),
      ':prefix': keys.nodeClaimPrefix,
    };
    // Terminated claims past their retention: DynamoDB deletes them only eventually (dynalite never), so the read
    // enforces the expiry. Comparing the whole-second TTL with a fractional now keeps it exact to the millisecond.
    names['#ttl'] = TTL_ATTRIBUTE;
    values[':now'] = this.clock.now() / 1000;
    const conditions: string[] = ['(attribute_not_exists(#ttl) OR #ttl > :now)'];
    if (filter.states) {
      if (filter.states.length === 0) return [];
      names['#state'] = 'state';
      const refs = filter.states.map((s, i) => {
        values[`:s${i}`] = s;
        return `:s${i}`;
      });
      conditions.push(`#state IN (${refs.join(', ')})`);
    }
    if (filter.nodePool !== undefined) {
      names['#np'] = 'nodePool';
      values[':np'] = filter.nodePool;
      conditions.push('#np = :np');
    }
    const items = await this.queryAll({
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      FilterExpression: conditions.join(' AND '),
      ConsistentRead: true,
    });
    return items.map(itemToClaim);
  }

  async getByInstanceId(instanceId: string): Promise<NodeClaim | undefined> {
    const items = await this.queryAll({
      IndexName: INSTANCE_ID_INDEX,
      KeyConditionExpression: '#iid = :iid',
      // The GSI may be shared by every cluster that ever wrote to this table; keep our own.
      FilterExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#iid': INSTANCE_ID_ATTRIBUTE, '#pk': PK },
      ExpressionAttributeValues: { ':iid': instanceId, ':pk': keys.cluster(this.cluster) },
    });
    const first = items[0];
    if (!first) return undefined;
    // GSIs are eventually consistent: confirm against the base item so the caller gets a current version.
    return this.get(itemToClaim(first).name);
  }

  async transition(claim: NodeClaim, to: NodeClaimState, patch: Partial<NodeClaim> = {}): Promise<NodeClaim> {
    assertTransition(claim.name, claim.state, to);
    const next = this.applyPatch(claim, patch);
    next.state = to;
    next.stateTimes = { ...next.stateTimes, [to]: new Date(this.clock.now()).toISOString() };
    return this.conditionalPut(claim, next);
  }

  async update(claim: NodeClaim, patch: Partial<NodeClaim>): Promise<NodeClaim> {
    return this.conditionalPut(claim, this.applyPatch(claim, patch));
  }

  async delete(claim: NodeClaim): Promise<void> {
    await this.atVersion(claim, (condition) =>
      this.client.send(
        new DeleteCommand({
          TableName: this.table,
          Key: { [PK]: keys.cluster(this.cluster), [SK]: keys.nodeClaim(claim.name) },
          ...condition,
        }),
      ),
    );
  }

  async markUnavailable(offering: UnavailableOffering): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.table, Item: offeringToItem(this.cluster, offering) }));
  }

  async listUnavailable(now: number): Promise<UnavailableOffering[]> {
    // DynamoDB deletes expired items only eventually (and dynalite never), so expiry is enforced here.
    const items = await this.queryAll({
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      FilterExpression: '#exp > :now',
      ExpressionAttributeNames: { '#pk': PK, '#sk': SK, '#exp': 'expiresAtMs' },
      ExpressionAttributeValues: { ':pk': keys.cluster(this.cluster), ':prefix': keys.offeringPrefix, ':now': now },
    });
    return items.map(itemToOffering);
  }

  /** Writes the record cut to DECISION_BUDGET_BYTES (shared/api/decision-size.ts), so a large decision is stored
   * partial, with its `truncated` counts, rather than refused; should DynamoDB still find an item too large (its
   * encoding outgrew the JSON estimate), once more at half the budget. */
  async putDecision(record: DecisionRecord): Promise<void> {
    try {
      await this.writeDecision(record, DECISION_BUDGET_BYTES);
    } catch (err) {
      if (!isItemTooLarge(err)) throw err;
      await this.writeDecision(record, DECISION_BUDGET_BYTES / 2);
    }
  }

  private async writeDecision(record: DecisionRecord, budget: number): Promise<void> {
    const capped = capDecision({ ...record, cluster: this.cluster }, budget);
    const items = decisionToItems(this.cluster, capped, record.nodeClaims);
    for (let i = 0; i < items.length; i += 25) {
      let pending: Item[] = items.slice(i, i + 25);
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 5) throw new Error(`decision ${record.id}: ${pending.length} items left unprocessed`);
        const out = await this.client.send(
          new BatchWriteCommand({ RequestItems: { [this.table]: pending.map((Item) => ({ PutRequest: { Item } })) } }),
        );
        pending = (out.UnprocessedItems?.[this.table] ?? []).flatMap((r) =>
          r.PutRequest?.Item ? [r.PutRequest.Item] : [],
        );
        if (pending.length) await sleep(50 * 2 ** attempt);
      }
    }
  }

  async listDecisions(nodeClaim: string): Promise<DecisionRecord[]> {
    const items = await this.queryAll({
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ExpressionAttributeNames: { '#pk': PK, '#sk': SK },
      ExpressionAttributeValues: { ':pk': keys.cluster(this.cluster), ':prefix': keys.claimDecisionPrefix(nodeClaim) },
    });
    return items.map(itemToDecision);
  }
  async getSweepCursor(): Promise<SweepCursor | undefined> {
    const out = await this.client.send(
      new GetCommand({ TableName: this.table, Key: { [PK]: keys.cluster(this.cluster), [SK]: keys.sweepCursor } }),
    );
    return parseSweepCursor(out.Item?.cursor);
  }

  async putSweepCursor(cursor: SweepCursor | undefined): Promise<void> {
    const key = { [PK]: keys.cluster(this.cluster), [SK]: keys.sweepCursor };
    if (!cursor) {
      await this.client.send(new DeleteCommand({ TableName: this.table, Key: key }));
      return;
    }
    await this.client.send(
      new PutCommand({ TableName: this.table, Item: { ...key, [ENTITY_ATTRIBUTE]: Entity.SweepCursor, cursor } }),
    );
  }

  /** The newest decision record of the cluster (one Query, newest first), or undefined when there is none. */
  async latestDecision(): Promise<DecisionRecord | undefined> {
    const page = await this.client.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#pk': PK, '#sk': SK },
        ExpressionAttributeValues: { ':pk': keys.cluster(this.cluster), ':prefix': keys.decisionPrefix },
        ScanIndexForward: false,
        Limit: 1,
      }),
    );
    const item = page.Items?.[0] as Item | undefined;
    return item ? itemToDecision(item) : undefined;
  }

  private applyPatch(claim: NodeClaim, patch: Partial<NodeClaim>): NodeClaim {
    const next: NodeClaim = { ...claim, ...patch };
    for (const k of IMMUTABLE) (next as unknown as Record<string, unknown>)[k] = claim[k];
    return next;
  }

  private async conditionalPut(read: NodeClaim, next: NodeClaim): Promise<NodeClaim> {
    const written: NodeClaim = { ...next, version: read.version + 1 };
    await this.atVersion(read, (condition) =>
      this.client.send(
        new PutCommand({ TableName: this.table, Item: claimToItem(this.cluster, written), ...condition }),
      ),
    );
    return written;
  }

  /** Runs a write on the condition that the stored claim still has `read`'s version; a lost race (the version moved
   * on, or the claim is gone) is a ConflictError. */
  private async atVersion(
    read: NodeClaim,
    write: (condition: {
      ConditionExpression: string;
      ExpressionAttributeNames: Record<string, string>;
      ExpressionAttributeValues: Record<string, number>;
    }) => Promise<unknown>,
  ): Promise<void> {
    try {
      await write({
        ConditionExpression: '#v = :v',
        ExpressionAttributeNames: { '#v': VERSION_ATTRIBUTE },
        ExpressionAttributeValues: { ':v': read.version },
      });
    } catch (err) {
      if (isConditionFailure(err)) {
        throw new ConflictError(`NodeClaim ${read.name}: version ${read.version} is stale or the claim is gone`);
      }
      throw err;
    }
  }

  private async queryAll(input: Omit<QueryCommandInput, 'TableName'>): Promise<Item[]> {
    const out: Item[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({ ...input, TableName: this.table, ...(start ? { ExclusiveStartKey: start } : {}) }),
      );
      out.push(...((page.Items ?? []) as Item[]));
      start = page.LastEvaluatedKey;
    } while (start);
    return out;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
