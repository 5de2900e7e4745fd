// Volume attach limits: how many volumes of each CSI driver a node holds, and whether a pod's volumes would take it
// past the driver's limit (a CSINode's `drivers[].allocatable.count`, or for a new node its instance type's EBS
// attachment limit; docs/simulate-dump.md, Volume attach limits). Volumes are counted by claim, as Karpenter counts
// them: pods sharing a PersistentVolumeClaim attach it once.

/** A pod's attachable volumes: per CSI driver, the claims (`namespace/name`) it mounts. */
export type PodVolumes = ReadonlyMap<string, readonly string[]>;

export const NO_VOLUMES: PodVolumes = new Map();

/** Attach limits per CSI driver; a driver absent here has no limit. */
export type VolumeLimits = Readonly<Record<string, number>>;

export class VolumeUsage {
  private readonly byDriver = new Map<string, Set<string>>();

  constructor(readonly limits: VolumeLimits = {}) {}

  get empty(): boolean {
    return this.byDriver.size === 0;
  }

  /** Distinct volumes per driver the node would hold with the pod's added. */
  countsWith(vols: PodVolumes): Map<string, number> {
    const out = new Map<string, number>();
    for (const [driver, ids] of vols) {
      const have = this.byDriver.get(driver);
      let n = have?.size ?? 0;
      for (const id of new Set(ids)) if (!have?.has(id)) n++;
      out.set(driver, n);
    }
    return out;
  }

  /** Why the pod's volumes would exceed a limit here; undefined when they fit. */
  exceeds(vols: PodVolumes): string | undefined {
    if (vols.size === 0) return undefined;
    for (const [driver, n] of this.countsWith(vols)) {
      const limit = this.limits[driver];
      if (limit !== undefined && n > limit) return `would exceed the volume limit of ${driver} (${n} > ${limit})`;
    }
    return undefined;
  }

  add(vols: PodVolumes): void {
    for (const [driver, ids] of vols) {
      let have = this.byDriver.get(driver);
      if (!have) {
        have = new Set();
        this.byDriver.set(driver, have);
      }
      for (const id of ids) have.add(id);
    }
  }
}

/** Whether every count stays within the limits (a driver without a limit takes any number). */
export function withinLimits(counts: ReadonlyMap<string, number>, limits: VolumeLimits | undefined): boolean {
  if (!limits) return true;
  for (const [driver, n] of counts) {
    const limit = limits[driver];
    if (limit !== undefined && n > limit) return false;
  }
  return true;
}
