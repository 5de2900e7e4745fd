// A pod read as two short texts, its class and its requests (podshape.ts PodShapes.baseOf): pods with equal texts
// share a class, and within a class a base, without a copy of their specs being made.
import type { Container, Pod } from '../api/kube';
import type { VolumeTopology } from './volumes';

/**
 * The pod's class as text: its spec without the node name, the volumes, the overhead and the containers' resources,
 * then its volume topology's key. Written key by key as JSON would write them, so no copy of the spec or its
 * containers is made: it is built for every pod. Two pods have the same text exactly when their specs, so read,
 * are equal (as JSON texts) and their volume topologies are; a pod without volume topology adds nothing, which no
 * pod with one (two more JSON strings) can equal.
 */
export function classText(spec: Pod['spec'], vol: VolumeTopology): string {
  let s = '{';
  let sep = '';
  const fields = spec as unknown as Record<string, unknown>;
  for (const k in fields) {
    if (k === 'nodeName' || k === 'volumes' || k === 'overhead') continue;
    const v = k === 'containers' || k === 'initContainers' ? containersText(fields[k]) : JSON.stringify(fields[k]);
    if (v === undefined) continue;
    s += `${sep}${JSON.stringify(k)}:${v}`;
    sep = ',';
  }
  s += '}';
  return vol.key === '' && !vol.missing ? s : `${s}${JSON.stringify(vol.key)}${JSON.stringify(vol.missing ?? '')}`;
}

/** A container list's text without each container's resources (`requestsText` holds those). */
function containersText(list: unknown): string | undefined {
  if (!Array.isArray(list)) return JSON.stringify(list);
  let s = '[';
  for (let i = 0; i < list.length; i++) {
    const c: unknown = list[i];
    if (i > 0) s += ',';
    if (c === null || typeof c !== 'object' || Array.isArray(c)) {
      s += JSON.stringify(c) ?? 'null';
      continue;
    }
    const fields = c as Record<string, unknown>;
    let sep = '';
    s += '{';
    for (const k in fields) {
      if (k === 'resources') continue;
      const v = JSON.stringify(fields[k]);
      if (v === undefined) continue;
      s += `${sep}${JSON.stringify(k)}:${v}`;
      sep = ',';
    }
    s += '}';
  }
  return `${s}]`;
}

/**
 * What `classText` leaves out of a pod's spec: each container's resources, each init container's, and the overhead,
 * as JSON texts (`-` for none) in that order. The class fixes how many containers there are, so within a class two
 * pods have the same text exactly when those parts of their specs are equal.
 *
 * Joined from a list, not concatenated: a concatenation is a tree of string pieces, which the map of a class's bases
 * keeps as its key, and with every request distinct that was five more objects per pod for the young-generation
 * collector to copy (docs/performance.md, "Distinct requests: what survives the setup").
 */
export function requestsText(spec: Pod['spec']): string {
  const parts: string[] = [];
  resourcesText(spec.containers, parts);
  parts.push('|');
  resourcesText(spec.initContainers, parts);
  parts.push('|', JSON.stringify(spec.overhead) ?? '-');
  return parts.join('');
}

function resourcesText(list: unknown, parts: string[]): void {
  if (!Array.isArray(list)) return;
  for (let i = 0; i < list.length; i++) {
    const c: unknown = list[i];
    const r = c !== null && typeof c === 'object' ? JSON.stringify((c as Container).resources) : '';
    if (i > 0) parts.push(',');
    parts.push(r ?? '-');
  }
}
