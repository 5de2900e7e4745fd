// Why each pod `karpless dev` leaves pending is still pending: the last word the provisioner said about it, as a
// Kubernetes Event (FailedScheduling with the solver's reason, or Nominated to a NodeClaim whose node is not ready),
// read from the simulated cluster the handlers wrote their events to (docs/aws.md, "Trying the control plane
// against an AWS-compatible endpoint").
import { type Pod, podKey } from '../../shared/api/kube';
import type { RecordedEvent } from '../../shared/sim';
import { naturalOrder } from '../format/pending-groups';

/** At most this many pods get a line of their own; the rest are counted. */
const MAX_LINES = 20;

export interface PendingReason {
  pod: string;
  reason: string;
}

/** One reason per pending pod, in name order, from the latest FailedScheduling or Nominated event about it. */
export function pendingReasons(pods: readonly Pod[], events: readonly RecordedEvent[]): PendingReason[] {
  const latest = new Map<string, RecordedEvent>();
  for (const e of events) {
    if (e.involved.kind !== 'Pod' || (e.reason !== 'FailedScheduling' && e.reason !== 'Nominated')) continue;
    latest.set(`${e.involved.namespace ?? 'default'}/${e.involved.name}`, e);
  }
  return pods
    .map(podKey)
    .sort(naturalOrder)
    .map((pod) => ({ pod, reason: reasonOf(latest.get(pod)) }));
}

function reasonOf(e: RecordedEvent | undefined): string {
  if (!e) return 'no provisioning pass has placed or refused it yet (the run ended first)';
  if (e.reason === 'Nominated') return `Nominated: ${e.message} (at ${e.at}); its node has not joined and taken it yet`;
  return `${e.message} (FailedScheduling at ${e.at})`;
}

/** The summary's lines for them: one per pod, up to MAX_LINES. */
export function pendingLines(reasons: readonly PendingReason[]): string[] {
  const lines = reasons.slice(0, MAX_LINES).map((r) => `    ${r.pod}: ${r.reason}`);
  if (reasons.length > MAX_LINES) lines.push(`    … and ${reasons.length - MAX_LINES} more`);
  return lines;
}
