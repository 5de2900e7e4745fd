// Which CSI driver attaches each of a pod's volumes, so attach limits can count them (volumeusage.ts). A claim bound to
// a volume takes the volume's driver (`spec.csi.driver`, or ebs.csi.aws.com for an in-tree EBS volume); an unbound
// claim takes its StorageClass's provisioner, in-tree names translated to their CSI drivers as CSI migration does.
// Volumes without a claim (emptyDir, hostPath, NFS), claims with `storageClassName: ""` and objects that are missing
// attach nothing countable and are skipped, as Karpenter skips them.
import type { Pod } from '../api/kube';
import { EBS_CSI_DRIVER } from '../catalog/ebs-limits';
import type { VolumeIndex } from './volumes';
import { NO_VOLUMES, type PodVolumes } from './volumeusage';

/** In-tree provisioners and the CSI drivers CSI migration hands them to (Kubernetes' csi-translation-lib). */
const MIGRATED: Readonly<Record<string, string>> = {
  'kubernetes.io/aws-ebs': EBS_CSI_DRIVER,
  'kubernetes.io/gce-pd': 'pd.csi.storage.gke.io',
  'kubernetes.io/azure-disk': 'disk.csi.azure.com',
  'kubernetes.io/azure-file': 'file.csi.azure.com',
  'kubernetes.io/cinder': 'cinder.csi.openstack.org',
  'kubernetes.io/vsphere-volume': 'csi.vsphere.vmware.com',
  'kubernetes.io/portworx-volume': 'pxd.portworx.com',
};

export function csiDriverOf(provisioner: string): string {
  return MIGRATED[provisioner] ?? provisioner;
}

/** The pod's claims per CSI driver. An ephemeral volume whose claim does not exist yet (plain manifests, a dump taken
 * before the ephemeral controller ran) counts with its template's class: the claim it will get. */
export function podVolumes(pod: Pod, index: VolumeIndex): PodVolumes {
  const vols = pod.spec.volumes;
  if (!vols?.some((v) => v.persistentVolumeClaim || v.ephemeral)) return NO_VOLUMES;
  const ns = pod.metadata.namespace;
  const out = new Map<string, string[]>();
  for (const v of vols) {
    const claimName = v.persistentVolumeClaim
      ? v.persistentVolumeClaim.claimName
      : v.ephemeral
        ? `${pod.metadata.name}-${v.name}`
        : undefined;
    if (claimName === undefined) continue;
    const pvc = index.claim(ns, claimName);
    let driver: string | undefined;
    if (pvc?.spec.volumeName) {
      const pv = index.volume(pvc.spec.volumeName);
      driver = pv?.spec.csi?.driver ?? (pv?.spec.awsElasticBlockStore ? EBS_CSI_DRIVER : undefined);
    } else if (pvc || v.ephemeral) {
      const className = pvc ? pvc.spec.storageClassName : v.ephemeral?.volumeClaimTemplate?.spec.storageClassName;
      const sc = className === '' ? undefined : index.storageClass(className);
      driver = sc ? csiDriverOf(sc.provisioner) : undefined;
    }
    if (!driver) continue;
    const ids = out.get(driver);
    const id = `${ns}/${claimName}`;
    if (ids) ids.push(id);
    else out.set(driver, [id]);
  }
  return out.size === 0 ? NO_VOLUMES : out;
}
