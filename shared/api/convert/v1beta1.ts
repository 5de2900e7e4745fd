// NodePool (karpenter.sh/v1beta1) and EC2NodeClass (karpenter.k8s.aws/v1beta1) → v1, following Karpenter's v1
// migration guide: WhenUnderutilized is renamed, expireAfter and kubelet move, nodeClassRef.apiVersion becomes
// group, AMI selector terms become required, and the metadata hop-limit default drops from 2 to 1.
import { isObj, type Obj, show } from '../check';
import type { Problems } from '../problems';
import { ALIAS_FAMILIES } from '../validate-nodeclass';
import type { ConvertedProvisioner } from './provisioner';

export function convertNodePoolV1beta1(p: Problems, doc: Obj): ConvertedProvisioner {
  const copy = structuredClone(doc);
  copy.apiVersion = 'karpenter.sh/v1';
  const spec = isObj(copy.spec) ? copy.spec : {};
  const template = isObj(spec.template) ? spec.template : {};
  const tspec = isObj(template.spec) ? template.spec : {};
  const disruption = isObj(spec.disruption) ? spec.disruption : undefined;
  if (disruption) {
    if (disruption.consolidationPolicy === 'WhenUnderutilized') {
      disruption.consolidationPolicy = 'WhenEmptyOrUnderutilized';
      p.warn('spec.disruption.consolidationPolicy', 'WhenUnderutilized is named WhenEmptyOrUnderutilized in v1');
      if (disruption.consolidateAfter === undefined) {
        disruption.consolidateAfter = '0s';
        p.warn('spec.disruption.consolidateAfter', 'v1 requires it; 0s keeps the v1beta1 behaviour');
      }
    }
    if (disruption.expireAfter !== undefined) {
      if (tspec.expireAfter === undefined) tspec.expireAfter = disruption.expireAfter;
      delete disruption.expireAfter;
      p.warn('spec.disruption.expireAfter', 'moves to spec.template.spec.expireAfter');
    }
  }
  let nodeClassName = '';
  if (isObj(tspec.nodeClassRef)) {
    const ref = tspec.nodeClassRef;
    nodeClassName = typeof ref.name === 'string' ? ref.name : '';
    const group = typeof ref.apiVersion === 'string' ? ref.apiVersion.split('/')[0] : undefined;
    tspec.nodeClassRef = {
      group: ref.group ?? group ?? 'karpenter.k8s.aws',
      kind: ref.kind ?? 'EC2NodeClass',
      name: ref.name,
    };
    if (ref.apiVersion !== undefined) p.warn('spec.template.spec.nodeClassRef.apiVersion', `becomes group: ${group}`);
  }
  let kubelet: Obj | undefined;
  if (tspec.kubelet !== undefined) {
    if (isObj(tspec.kubelet)) {
      kubelet = tspec.kubelet;
      p.warn('spec.template.spec.kubelet', `moves to EC2NodeClass/${nodeClassName} spec.kubelet`);
    } else p.error('spec.template.spec.kubelet', `must be an object, got ${show(tspec.kubelet)}`);
    delete tspec.kubelet;
  }
  p.warn('', 'converted from karpenter.sh/v1beta1 to karpenter.sh/v1');
  return { nodePool: copy, ...(kubelet ? { kubelet } : {}), nodeClassName };
}

export function convertNodeClassV1beta1(p: Problems, doc: Obj): Obj {
  const copy = structuredClone(doc);
  copy.apiVersion = 'karpenter.k8s.aws/v1';
  const spec = isObj(copy.spec) ? copy.spec : {};
  const family = typeof spec.amiFamily === 'string' ? spec.amiFamily : undefined;
  if (family === 'Ubuntu') {
    p.error(
      'spec.amiFamily',
      'Ubuntu is not supported by Karpenter v1: use amiFamily Custom with amiSelectorTerms and your own userData',
    );
  }
  if (spec.amiSelectorTerms === undefined && family && family !== 'Ubuntu') {
    const alias = Object.keys(ALIAS_FAMILIES).find((k) => ALIAS_FAMILIES[k] === family);
    if (alias) {
      spec.amiSelectorTerms = [{ alias: `${alias}@latest` }];
      p.warn(
        'spec.amiSelectorTerms',
        `required in v1; alias ${alias}@latest selects the latest ${family} AMI, as amiFamily alone did`,
      );
    } else p.error('spec.amiSelectorTerms', `required with amiFamily ${family}`);
  }
  const md = isObj(spec.metadataOptions) ? spec.metadataOptions : undefined;
  if (!md || md.httpPutResponseHopLimit === undefined) {
    spec.metadataOptions = { ...(md ?? {}), httpPutResponseHopLimit: 2 };
    p.warn(
      'spec.metadataOptions.httpPutResponseHopLimit',
      'v1beta1 defaulted it to 2 and v1 to 1; 2 is written so pods keep reaching instance metadata',
    );
  }
  p.warn('', 'converted from karpenter.k8s.aws/v1beta1 to karpenter.k8s.aws/v1');
  return copy;
}
