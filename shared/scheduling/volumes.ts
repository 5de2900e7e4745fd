// Volume topology: a pod whose volume is already bound must go where the volume lives (the PV's node affinity); a
// pod whose claim is still unbound, in a WaitForFirstConsumer StorageClass with allowedTopologies, must go where the
// class can provision. Both become node requirements. Only the first node-selector term is used: terms are ORed and,
// like Karpenter, we commit to one.
import type { PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../api/kube';
import { Requirement } from './requirement';
import { Requirements } from './requirements';

const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';

/** Where a pod's volumes let it run, as `VolumeIndex.requirementsFor` reads them. */
export interface VolumeTopology {
  requirements: Requirements;
  warnings: string[];
  /** The requirements as text ('' when none), part of the pod's signature. */
  key: string;
  missing?: string;
}

export class VolumeIndex {
  private readonly pvcs = new Map<string, PersistentVolumeClaim>();
  private readonly pvs = new Map<string, PersistentVolume>();
  private readonly classes = new Map<string, StorageClass>();
  private readonly defaultClass: StorageClass | undefined;

  constructor(pvcs: PersistentVolumeClaim[] = [], pvs: PersistentVolume[] = [], classes: StorageClass[] = []) {
    for (const c of pvcs) this.pvcs.set(`${c.metadata.namespace ?? 'default'}/${c.metadata.name}`, c);
    for (const v of pvs) this.pvs.set(v.metadata.name, v);
    for (const s of classes) this.classes.set(s.metadata.name, s);
    // With several default classes, admission gives a claim the newest (Kubernetes 1.26 and later), as Karpenter does.
    for (const s of classes) {
      if (s.metadata.annotations?.[DEFAULT_CLASS_ANNOTATION] !== 'true') continue;
      if (
        !this.defaultClass ||
        (s.metadata.creationTimestamp ?? '') > (this.defaultClass.metadata.creationTimestamp ?? '')
      )
        this.defaultClass = s;
    }
  }

  claim(namespace: string, name: string): PersistentVolumeClaim | undefined {
    return this.pvcs.get(`${namespace}/${name}`);
  }

  volume(name: string): PersistentVolume | undefined {
    return this.pvs.get(name);
  }

  /** The named StorageClass, or the default class when no name is given (what admission fills in). */
  storageClass(name: string | undefined): StorageClass | undefined {
    return name !== undefined ? this.classes.get(name) : this.defaultClass;
  }

  /**
   * The pod's volume requirements and any warnings. A claim the pod names that does not exist makes it `missing`:
   * the kube-scheduler will not place the pod until the claim exists, so (like Karpenter) no node is launched for it.
   * Other missing objects (a bound PV, a StorageClass) are warned about and leave the zone unconstrained.
   */
  requirementsFor(pod: Pod): VolumeTopology {
    const requirements = new Requirements();
    const warnings: string[] = [];
    let missing: string | undefined;
    const ns = pod.metadata.namespace;
    for (const vol of pod.spec.volumes ?? []) {
      let claimName: string | undefined;
      let templateClass: string | undefined;
      if (vol.persistentVolumeClaim) claimName = vol.persistentVolumeClaim.claimName;
      else if (vol.ephemeral) {
        claimName = `${pod.metadata.name}-${vol.name}`;
        templateClass = vol.ephemeral.volumeClaimTemplate?.spec.storageClassName;
      } else continue;
      const pvc = this.pvcs.get(`${ns}/${claimName}`);
      if (!pvc && !vol.ephemeral) {
        missing ??= `PersistentVolumeClaim ${ns}/${claimName} not found`;
        continue;
      }
      const volumeName = pvc?.spec.volumeName;
      if (volumeName) {
        const pv = this.pvs.get(volumeName);
        const term = pv?.spec.nodeAffinity?.required?.nodeSelectorTerms[0];
        if (!pv) warnings.push(`PersistentVolume ${volumeName} (bound to ${ns}/${claimName}) not found`);
        else if (term) requirements.addAll(Requirements.from(term.matchExpressions ?? []));
        continue;
      }
      const className = pvc?.spec.storageClassName ?? templateClass;
      const sc = className !== undefined ? this.classes.get(className) : this.defaultClass;
      if (!sc) {
        if (className) warnings.push(`StorageClass ${className} (for ${ns}/${claimName}) not found`);
        continue;
      }
      if (sc.volumeBindingMode !== 'WaitForFirstConsumer') continue;
      const topo = sc.allowedTopologies?.[0];
      for (const e of topo?.matchLabelExpressions ?? []) requirements.add(Requirement.of(e.key, 'In', e.values));
    }
    const key = requirements.size === 0 ? '' : requirements.toString();
    return { requirements, warnings, key, ...(missing ? { missing } : {}) };
  }
}
