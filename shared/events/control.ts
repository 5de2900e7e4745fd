// Runtime validation of the messages on the cluster FIFO queue (shared/messages.ts): forwarder batches, the
// scheduler's sweep tick, termination's own re-queued steps and the disruption re-checks the provisioner schedules. Unknown extra fields are tolerated so a newer
// forwarder can add hints without breaking older functions; a different `v` is rejected.
import type {
  ClusterMessage,
  ClusterMessageKind,
  ControlMessage,
  DisruptionDueMessage,
  ObjectRef,
  SweepMessage,
  TerminationMessage,
} from '../messages';
import { bodyParser, type JsonObject, Reader } from './reader';

export const CLUSTER_MESSAGE_KINDS: readonly ClusterMessageKind[] = [
  'PodsPending',
  'NodeChanged',
  'NodePoolChanged',
  'NodeClaimDeleted',
];
export const CONTROL_MESSAGE_KINDS: readonly ControlMessage['kind'][] = [
  ...CLUSTER_MESSAGE_KINDS,
  'Sweep',
  'Terminate',
  'DisruptionDue',
];
export const CONTROL_MESSAGE_VERSION = 1;

export type { ParseOptions } from './reader';

/** Parses and validates a cluster-queue message body. Throws ValidationError naming every bad field. */
export const parseControlMessage = bodyParser('control message', validateControlMessage);

export function validateControlMessage(value: unknown, source = 'control message'): ControlMessage {
  const r = new Reader(source);
  const obj = r.object(value, '');
  if (!obj) {
    r.done();
    throw new Error('unreachable');
  }
  if (obj.v !== CONTROL_MESSAGE_VERSION) {
    r.fail(
      'v',
      obj.v === undefined
        ? 'required version is missing'
        : `unsupported version ${JSON.stringify(obj.v)} (expected ${CONTROL_MESSAGE_VERSION})`,
    );
  }
  const cluster = r.string(obj, 'cluster', '');
  const kind = r.oneOf(obj, 'kind', '', CONTROL_MESSAGE_KINDS, 'kind');
  const at = r.time(obj, 'at', '');
  const message = kind && cluster && at ? build(r, obj, kind, cluster, at) : undefined;
  r.done();
  if (!message) throw new Error('unreachable: reader reported no problem');
  return message;
}

function build(
  r: Reader,
  obj: JsonObject,
  kind: ControlMessage['kind'],
  cluster: string,
  at: string,
): ControlMessage | undefined {
  switch (kind) {
    case 'Sweep': {
      const execution = r.optionalString(obj, 'execution', '');
      return { v: 1, cluster, kind, at, ...(execution !== undefined && { execution }) } satisfies SweepMessage;
    }
    case 'DisruptionDue':
      return { v: 1, cluster, kind, at } satisfies DisruptionDueMessage;
    case 'Terminate': {
      const nodeClaim = r.string(obj, 'nodeClaim', '');
      return nodeClaim ? ({ v: 1, cluster, kind, nodeClaim, at } satisfies TerminationMessage) : undefined;
    }
    default: {
      const refs = readRefs(r, obj);
      return refs ? ({ v: 1, cluster, kind, at, refs } satisfies ClusterMessage) : undefined;
    }
  }
}

function readRefs(r: Reader, obj: JsonObject): ObjectRef[] | undefined {
  const refs: ObjectRef[] = [];
  const count = r.eachObject(obj, 'refs', '', (ref, path) => {
    const name = r.string(ref, 'name', path);
    const kind = r.optionalString(ref, 'kind', path);
    const namespace = r.optionalString(ref, 'namespace', path);
    const uid = r.optionalString(ref, 'uid', path);
    const resourceVersion = r.optionalString(ref, 'resourceVersion', path);
    if (name === undefined) return;
    refs.push({
      ...(kind !== undefined && { kind }),
      name,
      ...(namespace !== undefined && { namespace }),
      ...(uid !== undefined && { uid }),
      ...(resourceVersion !== undefined && { resourceVersion }),
    });
  });
  if (count === undefined) return undefined;
  return refs.length === count ? refs : undefined;
}

export function isClusterMessage(message: ControlMessage): message is ClusterMessage {
  return (CLUSTER_MESSAGE_KINDS as readonly string[]).includes(message.kind);
}
