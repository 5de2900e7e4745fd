// Names and ids for NodeClaims. A claim's name is derived from its NodePool and the pods it was planned for, so two
// passes that plan the same claim from the same state collide on the store's conditional create and only one of
// them launches; the uid is random, because it is CreateFleet's ClientToken and must never be reused.
import type { PodRef } from './kube';

/** The one dependency uids draw on: a seeded random source in simulations, none (crypto) in production. */
export interface RandomSource {
  random?: () => number;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** FNV-1a over a string, 32 bits. */
function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** `<nodepool>-<5 lowercase alphanumerics>`, Karpenter's NodeClaim name shape, stable for a given pod set. */
export function claimName(nodePool: string, pods: readonly PodRef[], salt = 0): string {
  const identity = pods
    .map((p) => `${p.namespace}/${p.name}/${p.uid ?? ''}`)
    .sort()
    .join('\n');
  return `${nodePool}-${suffixOf(`${nodePool}\n${salt}\n${identity}`)}`;
}

/** A static NodePool's claim name, stable for the pool's claims a pass read and the slot it fills: two passes that
 * read the same claims write the same names, so the store's conditional create lets one of them write each slot. */
export function staticClaimName(nodePool: string, known: readonly string[], slot: number, salt = 0): string {
  const identity = [...known].sort().join('\n');
  return `${nodePool}-${suffixOf(`${nodePool}\nstatic ${slot}\n${salt}\n${identity}`)}`;
}

function suffixOf(text: string): string {
  let h = fnv1a(text);
  let suffix = '';
  for (let i = 0; i < 5; i++) {
    suffix += ALPHABET[h % ALPHABET.length];
    h = (Math.floor(h / ALPHABET.length) ^ fnv1a(suffix, h)) >>> 0;
  }
  return suffix;
}

function randomHex(random: () => number, length: number): string {
  let out = '';
  while (out.length < length) out += Math.floor(random() * 16).toString(16);
  return out;
}

/** A v4-shaped uid; drawn from the injected random source when there is one so simulations repeat. */
export function newUid(deps: RandomSource): string {
  if (!deps.random) return globalThis.crypto.randomUUID();
  const h = randomHex(deps.random, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function newId(deps: RandomSource): string {
  return newUid(deps).replaceAll('-', '').slice(0, 16);
}
