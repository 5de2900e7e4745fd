import { describe, expect, it } from 'vitest';
import { ec2NodeClass } from '../../testkit/builders';
import type { EC2NodeClass, EC2NodeClassSpec } from '../api/karpenter';
import { formatResourceList } from '../api/resources';
import { computeAllocatable, kubeReservedCpuMillis } from './allocatable';
import { loadCatalog } from './load';
import type { InstanceTypeInfo } from './types';

const catalog = loadCatalog();
function info(name: string): InstanceTypeInfo {
  const found = catalog.types.find((t) => t.name === name);
  if (!found) throw new Error(`${name} missing from the snapshot`);
  return found;
}
function nodeClass(spec: Partial<EC2NodeClassSpec>): EC2NodeClass {
  return ec2NodeClass({ subnetSelectorTerms: [], securityGroupSelectorTerms: [], role: undefined, ...spec }, 'test');
}
const shape = (name: string, nc?: EC2NodeClass) => {
  const s = computeAllocatable(info(name), nc);
  return { capacity: formatResourceList(s.capacity), allocatable: formatResourceList(s.allocatable), raw: s };
};

describe('computeAllocatable', () => {
  it('matches the m5.large worked example: 1930m CPU, 6903Mi memory, 29 pods', () => {
    const { capacity, allocatable, raw } = shape('m5.large');
    expect(capacity).toMatchObject({ cpu: '2', memory: '7577Mi', pods: '29', 'ephemeral-storage': '20Gi' });
    expect(allocatable).toMatchObject({ cpu: '1930m', memory: '6903Mi', pods: '29', 'ephemeral-storage': '17Gi' });
    expect(formatResourceList(raw.overhead.kubeReserved)).toEqual({
      cpu: '70m',
      memory: '574Mi',
      'ephemeral-storage': '1Gi',
    });
    expect(formatResourceList(raw.overhead.evictionThreshold)).toEqual({
      memory: '100Mi',
      'ephemeral-storage': '2Gi',
    });
  });

  it('takes 64Mi from arm64 memory before the VM overhead, as Karpenter does', () => {
    // 8192 − 64 = 8128 Mi; less ceil(7.5 %) = 610 Mi; allocatable less 574 Mi kube-reserved and 100 Mi eviction.
    const { capacity, allocatable } = shape('m6g.large');
    expect(capacity.memory).toBe('7518Mi');
    expect(allocatable.memory).toBe('6844Mi');
  });

  it('exposes GPUs, Neuron devices and cores, branch ENIs and EFA as extended resources', () => {
    expect(shape('g4dn.xlarge').capacity).toMatchObject({ 'nvidia.com/gpu': '1', 'vpc.amazonaws.com/pod-eni': '39' });
    expect(shape('g4dn.12xlarge').allocatable['nvidia.com/gpu']).toBe('4');
    expect(shape('g4ad.8xlarge').capacity['amd.com/gpu']).toBe('2');
    expect(shape('g4ad.8xlarge').capacity['nvidia.com/gpu']).toBeUndefined();
    expect(shape('inf2.48xlarge').capacity).toMatchObject({
      'aws.amazon.com/neuron': '12',
      'aws.amazon.com/neuroncore': '24',
    });
    expect(shape('inf1.6xlarge').capacity).toMatchObject({
      'aws.amazon.com/neuron': '4',
      'aws.amazon.com/neuroncore': '16',
    });
    expect(shape('p5.48xlarge').capacity).toMatchObject({ 'nvidia.com/gpu': '8', 'vpc.amazonaws.com/efa': '32' });
    expect(shape('t3.medium').capacity['vpc.amazonaws.com/pod-eni']).toBeUndefined();
  });

  it('computes a GPU type end to end', () => {
    // g5.xlarge: 16 GiB, 4 vCPU, 4 ENIs × 15 IPv4 → 58 pods.
    const { capacity, allocatable } = shape('g5.xlarge');
    expect(capacity).toMatchObject({ cpu: '4', memory: '15155Mi', pods: '58', 'nvidia.com/gpu': '1' });
    // kube-reserved: 60+10+10 = 80m; memory 11×58+255 = 893Mi, eviction 100Mi.
    expect(allocatable).toMatchObject({ cpu: '3920m', memory: '14162Mi' });
  });

  it('follows the kube-reserved CPU ladder', () => {
    expect(kubeReservedCpuMillis(1)).toBe(60);
    expect(kubeReservedCpuMillis(2)).toBe(70);
    expect(kubeReservedCpuMillis(4)).toBe(80);
    expect(kubeReservedCpuMillis(8)).toBe(90);
    expect(kubeReservedCpuMillis(96)).toBe(310);
  });

  it('honours kubelet maxPods, which also changes kube-reserved memory', () => {
    const { capacity, allocatable } = shape('m5.large', nodeClass({ kubelet: { maxPods: 110 } }));
    expect(capacity.pods).toBe('110');
    // 7577 − (11×110 + 255) − 100 = 6012
    expect(allocatable.memory).toBe('6012Mi');
  });

  it('honours podsPerCore as a cap on the pod count', () => {
    expect(shape('m5.large', nodeClass({ kubelet: { podsPerCore: 4 } })).capacity.pods).toBe('8');
    expect(shape('m5.large', nodeClass({ kubelet: { podsPerCore: 40 } })).capacity.pods).toBe('29');
    expect(shape('m5.large', nodeClass({ kubelet: { maxPods: 20, podsPerCore: 40 } })).capacity.pods).toBe('20');
  });

  it('replaces kube-reserved per resource when the node class sets it', () => {
    const { allocatable, raw } = shape('m5.large', nodeClass({ kubelet: { kubeReserved: { cpu: '200m' } } }));
    expect(allocatable.cpu).toBe('1800m');
    expect(allocatable.memory).toBe('6903Mi');
    expect(formatResourceList(raw.overhead.kubeReserved).memory).toBe('574Mi');
  });

  it('subtracts systemReserved', () => {
    const { allocatable } = shape(
      'm5.large',
      nodeClass({ kubelet: { systemReserved: { cpu: '100m', memory: '500Mi' } } }),
    );
    expect(allocatable).toMatchObject({ cpu: '1830m', memory: '6403Mi' });
  });

  it('honours evictionHard as an absolute quantity or a percentage', () => {
    expect(
      shape('m5.large', nodeClass({ kubelet: { evictionHard: { 'memory.available': '500Mi' } } })).allocatable,
    ).toMatchObject({
      memory: '6503Mi',
      'ephemeral-storage': '17Gi',
    });
    const pct = shape(
      'm5.large',
      nodeClass({ kubelet: { evictionHard: { 'memory.available': '10%', 'nodefs.available': '15%' } } }),
    );
    // 10 % of 7577Mi = 775884.8Ki, rounded up to the byte.
    expect(pct.raw.allocatable.memory).toBe(7577 * 2 ** 20 - 574 * 2 ** 20 - Math.ceil(0.1 * 7577 * 2 ** 20));
    expect(pct.raw.allocatable['ephemeral-storage']).toBe(20 * 2 ** 30 - 2 ** 30 - Math.ceil(0.15 * 20 * 2 ** 30));
  });

  it('takes the larger of hard and soft eviction thresholds', () => {
    const nc = nodeClass({
      kubelet: { evictionHard: { 'memory.available': '200Mi' }, evictionSoft: { 'memory.available': '300Mi' } },
    });
    expect(shape('m5.large', nc).allocatable.memory).toBe('6703Mi');
  });

  it('sizes ephemeral storage from the root volume mapping', () => {
    const nc = nodeClass({
      blockDeviceMappings: [{ deviceName: '/dev/xvda', rootVolume: true, ebs: { volumeSize: '100Gi' } }],
    });
    const { capacity, allocatable } = shape('m5.large', nc);
    expect(capacity['ephemeral-storage']).toBe('100Gi');
    expect(allocatable['ephemeral-storage']).toBe('89Gi');
  });

  it('uses the AMI family default device when no mapping is marked root', () => {
    const bottlerocket = nodeClass({
      amiSelectorTerms: [{ alias: 'bottlerocket@latest' }],
      blockDeviceMappings: [
        { deviceName: '/dev/xvda', ebs: { volumeSize: '4Gi' } },
        { deviceName: '/dev/xvdb', ebs: { volumeSize: '60Gi' } },
      ],
    });
    expect(shape('m5.large', bottlerocket).capacity['ephemeral-storage']).toBe('60Gi');
    const windows = nodeClass({ amiFamily: 'Windows2022', amiSelectorTerms: [] });
    expect(shape('m5.large', windows).capacity['ephemeral-storage']).toBe('50Gi');
    expect(shape('m5.large', nodeClass({ blockDeviceMappings: [] })).capacity['ephemeral-storage']).toBe('20Gi');
  });

  it('puts the kubelet on the instance store with RAID0 when the type has one', () => {
    const nc = nodeClass({ instanceStorePolicy: 'RAID0' });
    expect(shape('m5d.large', nc).raw.capacity['ephemeral-storage']).toBe(75e9);
    expect(shape('m5.large', nc).capacity['ephemeral-storage']).toBe('20Gi');
  });
});
