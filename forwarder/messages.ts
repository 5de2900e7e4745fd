// Turns an outbox into SQS FIFO messages: one group per cluster, a deduplication id that is a hash of the kind,
// the refs and their resourceVersions (a retried send of the same content is dropped by SQS), and bodies split to
// stay under MAX_MESSAGE_BYTES however large the backlog.
import { createHash } from 'node:crypto';
import { type ClusterMessage, type ClusterMessageKind, MAX_MESSAGE_BYTES, type ObjectRef } from '../shared/messages';
import type { Outbox } from './tracker';

export interface OutgoingMessage {
  body: string;
  groupId: string;
  deduplicationId: string;
  kind: ClusterMessageKind;
  /** Outbox keys of the refs inside, so a failed send can be put back exactly. */
  keys: string[];
}

/** Kinds are sent in this order so a NodePool change is seen before the pods it may now fit. */
const KIND_ORDER: ClusterMessageKind[] = ['NodePoolChanged', 'NodeChanged', 'NodeClaimDeleted', 'PodsPending'];

export function deduplicationId(kind: ClusterMessageKind, refs: ObjectRef[]): string {
  const hash = createHash('sha256').update(kind);
  for (const r of refs) {
    hash
      .update('\n')
      .update(`${r.kind ?? ''}/${r.namespace ?? ''}/${r.name}/${r.uid ?? ''}/${r.resourceVersion ?? ''}`);
  }
  return hash.digest('hex');
}

export function buildMessages(
  cluster: string,
  outbox: Outbox,
  at: string,
  maxBytes: number = MAX_MESSAGE_BYTES,
): OutgoingMessage[] {
  const out: OutgoingMessage[] = [];
  for (const kind of KIND_ORDER) {
    const entries = [...(outbox.get(kind)?.entries() ?? [])];
    if (entries.length === 0) continue;
    for (const chunk of splitRefs(cluster, kind, at, entries, maxBytes)) {
      const refs = chunk.map(([, ref]) => ref);
      const message: ClusterMessage = { v: 1, cluster, kind, at, refs };
      out.push({
        body: JSON.stringify(message),
        groupId: cluster,
        deduplicationId: deduplicationId(kind, refs),
        kind,
        keys: chunk.map(([key]) => key),
      });
    }
  }
  return out;
}

type Entry = [key: string, ref: ObjectRef];

function splitRefs(cluster: string, kind: ClusterMessageKind, at: string, entries: Entry[], maxBytes: number) {
  const envelope = Buffer.byteLength(JSON.stringify({ v: 1, cluster, kind, at, refs: [] }));
  const chunks: Entry[][] = [];
  let chunk: Entry[] = [];
  let size = envelope;
  for (const entry of entries) {
    const ref = entry[1];
    const bytes = Buffer.byteLength(JSON.stringify(ref)) + 1; // + the comma
    if (envelope + bytes > maxBytes) throw new Error(`a single reference exceeds ${maxBytes} bytes: ${ref.name}`);
    if (size + bytes > maxBytes && chunk.length > 0) {
      chunks.push(chunk);
      chunk = [];
      size = envelope;
    }
    chunk.push(entry);
    size += bytes;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}
