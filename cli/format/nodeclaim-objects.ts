// The karpenter.sh/v1 NodeClaim objects in a (simulated) cluster as `kubectl get nodeclaims` prints them: the CRD's
// default printer columns (NAME, TYPE, CAPACITY, ZONE, NODE, READY, AGE), read from the objects the mirror wrote
// (shared/controllers/nodeclaim-mirror.ts), not from the store.
import { LabelCapacityType, LabelInstanceType, LabelZone } from '../../shared/api/labels';
import type { NodeClaimObject } from '../../shared/api/nodeclaim-object';
import { renderTable } from './table';

/** kubectl's age: the largest whole unit, seconds up to two minutes, then minutes, hours, days. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 2 * 3600) return `${Math.floor(s / 60)}m`;
  if (s < 2 * 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

export function renderNodeClaimObjects(objects: readonly NodeClaimObject[], now: number): string {
  const rows = [...objects]
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))
    .map((o) => {
      const labels = o.metadata.labels ?? {};
      const ready = o.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? '';
      const created = Date.parse(o.metadata.creationTimestamp ?? '');
      return [
        o.metadata.name,
        labels[LabelInstanceType] ?? '',
        labels[LabelCapacityType] ?? '',
        labels[LabelZone] ?? '',
        o.status?.nodeName ?? '',
        ready,
        Number.isNaN(created) ? '' : formatAge(now - created),
      ];
    });
  return renderTable(['NAME', 'TYPE', 'CAPACITY', 'ZONE', 'NODE', 'READY', 'AGE'], rows);
}
