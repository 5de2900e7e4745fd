// Types and runtime validators for every input the functions receive. Engine-pure: no SDK imports.
export {
  CLUSTER_MESSAGE_KINDS,
  CONTROL_MESSAGE_KINDS,
  CONTROL_MESSAGE_VERSION,
  isClusterMessage,
  type ParseOptions,
  parseControlMessage,
  validateControlMessage,
} from './control';
export * from './eventbridge';
export { type IgnoredEvent, isIgnored, parseInterruptionEvent, validateInterruptionEvent } from './interruption';
export { describe, isObject, type JsonObject, parseJson, Reader } from './reader';
export { type GcTick, type GcTickKind, gcTickTemplate, parseGcTick, sweepTemplate, validateGcTick } from './schedule';
export { checkClusterQueueMessage, parseTrustedSenders, type TrustedSenders } from './trust';
