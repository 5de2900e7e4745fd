import { describe, expect, it } from 'vitest';
import { problemsOf, VALID_NODECLASS } from '../../testkit/manifests';
import { parseManifests } from './parse';

const HEADER = 'apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: nc\n';

function nodeClassProblems(spec: string): string[] {
  return problemsOf(`${HEADER}spec:\n${spec}`, 'nc.yaml').map((p) => p.replace('nc.yaml#1 EC2NodeClass/nc: ', ''));
}

const SELECTORS = `  role: NodeRole
  subnetSelectorTerms:
    - tags: {karpenter.sh/discovery: demo}
  securityGroupSelectorTerms:
    - tags: {karpenter.sh/discovery: demo}
`;

describe('EC2NodeClass validation', () => {
  it('accepts a valid EC2NodeClass', () => {
    expect(problemsOf(VALID_NODECLASS)).toEqual([]);
  });

  it('requires non-empty selector terms', () => {
    expect(nodeClassProblems('  role: R\n  subnetSelectorTerms: []\n')).toEqual([
      'spec.subnetSelectorTerms: must have at least one term',
      'spec.securityGroupSelectorTerms: required',
      'spec.amiSelectorTerms: required',
    ]);
  });

  it('keeps id exclusive with other selector fields', () => {
    expect(
      nodeClassProblems(`  role: R
  amiSelectorTerms:
    - id: ami-123
      owner: self
    - name: my-ami
  amiFamily: AL2023
  subnetSelectorTerms:
    - id: subnet-abc
      tags: {a: b}
    - id: sn-1
  securityGroupSelectorTerms:
    - id: sg-1
      name: default
    - {}
    - tags: {"": x}
`),
    ).toEqual([
      "spec.subnetSelectorTerms[0]: 'id' is mutually exclusive, cannot be set with a combination of other fields",
      'spec.subnetSelectorTerms[1].id: "sn-1" does not match ^subnet-[0-9a-z]+$',
      "spec.securityGroupSelectorTerms[0]: 'id' is mutually exclusive, cannot be set with a combination of other fields",
      'spec.securityGroupSelectorTerms[1]: expected at least one of tags, id, name',
      'spec.securityGroupSelectorTerms[2].tags[""]: empty tag keys or values aren\'t supported',
      "spec.amiSelectorTerms[0]: 'id' is mutually exclusive, cannot be set with a combination of other fields",
    ]);
  });

  it.each([
    ['al2023', '"al2023" must have the format family@version (for example al2023@latest)'],
    ['ubuntu@latest', 'family "ubuntu" is not one of al2, al2023, bottlerocket, windows2019, windows2022, windows2025'],
    ['windows2022@v20240101', '"windows2022@v20240101": Windows families support only the version latest'],
    ['windows2025@v1.0.0', '"windows2025@v1.0.0": Windows families support only the version latest'],
  ])('rejects the alias %s', (alias, message) => {
    expect(nodeClassProblems(`${SELECTORS}  amiSelectorTerms:\n    - alias: ${alias}\n`)).toEqual([
      `spec.amiSelectorTerms[0].alias: ${message}`,
    ]);
  });

  it('keeps alias alone and consistent with amiFamily', () => {
    expect(
      nodeClassProblems(`${SELECTORS}  amiFamily: Bottlerocket
  amiSelectorTerms:
    - alias: al2023@v20240807
      tags: {a: b}
    - name: other
`),
    ).toEqual([
      "spec.amiSelectorTerms[0]: 'alias' is mutually exclusive, cannot be set with a combination of other fields",
      "spec.amiSelectorTerms: 'alias' is mutually exclusive, cannot be set with other amiSelectorTerms",
      'spec.amiFamily: must be AL2023 or Custom with the alias in amiSelectorTerms, got Bottlerocket',
    ]);
  });

  it('requires amiFamily without an alias, from the enum', () => {
    expect(nodeClassProblems(`${SELECTORS}  amiSelectorTerms:\n    - tags: {team: a}\n`)).toEqual([
      'spec.amiFamily: required when amiSelectorTerms has no alias',
    ]);
    expect(nodeClassProblems(`${SELECTORS}  amiFamily: Ubuntu\n  amiSelectorTerms:\n    - tags: {team: a}\n`)).toEqual([
      'spec.amiFamily: "Ubuntu" is not one of AL2, AL2023, Bottlerocket, Custom, Windows2019, Windows2022, Windows2025',
    ]);
  });

  it('checks kubelet settings', () => {
    expect(
      nodeClassProblems(`${SELECTORS}  amiSelectorTerms: [{alias: al2023@latest}]
  kubelet:
    maxPods: -1
    podsPerCore: 1.5
    systemReserved: {cpu: 100m, gpu: "1"}
    kubeReserved: {memory: lots}
    evictionHard: {memory.available: 5%, disk.available: 10%}
    evictionSoft: {nodefs.available: 15%}
    evictionSoftGracePeriod: {imagefs.available: 1m}
    imageGCHighThresholdPercent: 50
    imageGCLowThresholdPercent: 60
`),
    ).toEqual([
      'spec.kubelet.maxPods: must be at least 0, got -1',
      'spec.kubelet.podsPerCore: must be an integer, got 1.5',
      'spec.kubelet.systemReserved["gpu"]: "gpu" is not one of cpu, memory, ephemeral-storage, pid',
      'spec.kubelet.kubeReserved["memory"]: "lots" is not a valid quantity (for example 500m, 2, 512Mi, 1Gi)',
      'spec.kubelet.evictionHard["disk.available"]: "disk.available" is not one of memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree, pid.available',
      'spec.kubelet.evictionSoft["nodefs.available"]: has no matching evictionSoftGracePeriod',
      'spec.kubelet.evictionSoftGracePeriod["imagefs.available"]: has no matching evictionSoft',
      'spec.kubelet.imageGCHighThresholdPercent: must be greater than imageGCLowThresholdPercent (60), got 50',
    ]);
  });

  it('checks block devices, metadata options, tags and identity', () => {
    expect(
      nodeClassProblems(`${SELECTORS}  instanceProfile: Profile
  amiSelectorTerms: [{alias: bottlerocket@latest}]
  blockDeviceMappings:
    - deviceName: /dev/xvda
      rootVolume: true
      ebs: {volumeSize: 100GB, volumeType: gp4, throughput: 2000}
    - deviceName: /dev/xvdb
      rootVolume: true
      ebs: {encrypted: true}
  metadataOptions:
    httpEndpoint: on
    httpPutResponseHopLimit: 65
    httpTokens: optional
  tags:
    kubernetes.io/cluster/demo: owned
    karpenter.sh/nodepool: x
    team: a
`),
    ).toEqual([
      'spec: must specify exactly one of role, instanceProfile (both are set)',
      'spec.blockDeviceMappings[0].ebs.volumeSize: "100GB" must be a size in Gi, G, Ti or T (for example 100Gi)',
      'spec.blockDeviceMappings[0].ebs.volumeType: "gp4" is not one of standard, io1, io2, gp2, sc1, st1, gp3',
      'spec.blockDeviceMappings[0].ebs.throughput: must be between 125 and 1000, got 2000',
      'spec.blockDeviceMappings[1].ebs: snapshotID or volumeSize must be defined',
      'spec.blockDeviceMappings: must have only one blockDeviceMappings with rootVolume',
      'spec.metadataOptions.httpEndpoint: "on" is not one of enabled, disabled',
      'spec.metadataOptions.httpPutResponseHopLimit: must be between 1 and 64, got 65',
      'spec.tags["kubernetes.io/cluster/demo"]: tag kubernetes.io/cluster/* is restricted',
      'spec.tags["karpenter.sh/nodepool"]: tag "karpenter.sh/nodepool" is restricted',
    ]);
  });

  it('warns when neither role nor instanceProfile is set', () => {
    const set = parseManifests(VALID_NODECLASS.replace('  role: KarpenterNodeRole-demo\n', ''), 'nc.yaml');
    expect(set.warnings).toEqual([
      'nc.yaml#1 EC2NodeClass/default: spec: neither role nor instanceProfile is set; Karpenter requires exactly one before nodes can launch',
    ]);
  });

  it('accepts capacityReservationSelectorTerms by id, by tags with an owner, or by instanceMatchCriteria, without a warning', () => {
    const yaml = `${VALID_NODECLASS}  capacityReservationSelectorTerms:\n    - id: cr-0123456789abcdef0\n    - tags:\n        team: ml\n      ownerID: "111122223333"\n    - instanceMatchCriteria: open\n    - instanceMatchCriteria: targeted\n      tags: {team: ml}\n`;
    expect(problemsOf(yaml, 'nc.yaml')).toEqual([]);
    expect(parseManifests(yaml, 'nc.yaml').warnings).toEqual([]);
  });

  it.each([
    [
      '    - ownerID: "111122223333"\n',
      "spec.capacityReservationSelectorTerms[0]: expected at least one, got none, ['tags', 'id', 'instanceMatchCriteria']",
    ],
    [
      '    - id: cr-0123456789abcdef0\n      tags:\n        team: ml\n',
      "spec.capacityReservationSelectorTerms[0]: 'id' is mutually exclusive, cannot be set along with other fields in a capacity reservation selector term",
    ],
    [
      '    - id: cr-0123456789abcdef0\n      ownerID: "111122223333"\n',
      "spec.capacityReservationSelectorTerms[0]: 'id' is mutually exclusive, cannot be set along with other fields in a capacity reservation selector term",
    ],
    ['    - id: odcr-1\n', 'spec.capacityReservationSelectorTerms[0].id: "odcr-1" does not match ^cr-[0-9a-z]+$'],
    [
      '    - tags: {team: ml}\n      ownerID: "12"\n',
      'spec.capacityReservationSelectorTerms[0].ownerID: "12" does not match ^[0-9]{12}$',
    ],
    [
      '    - tags: {team: ""}\n',
      'spec.capacityReservationSelectorTerms[0].tags["team"]: empty tag keys or values aren\'t supported',
    ],
    [
      '    - id: cr-0123456789abcdef0\n      instanceMatchCriteria: open\n',
      "spec.capacityReservationSelectorTerms[0]: 'id' is mutually exclusive, cannot be set along with other fields in a capacity reservation selector term",
    ],
    [
      '    - instanceMatchCriteria: any\n',
      'spec.capacityReservationSelectorTerms[0].instanceMatchCriteria: "any" is not one of open, targeted',
    ],
    [
      '    - name: ml\n',
      'spec.capacityReservationSelectorTerms[0].name: is not a selector field; use one of tags, id, ownerID, instanceMatchCriteria',
    ],
  ])('rejects the capacity reservation term %j, naming the field', (term, message) => {
    const yaml = `${VALID_NODECLASS}  capacityReservationSelectorTerms:\n${term}`;
    expect(problemsOf(yaml, 'nc.yaml')).toContain(`nc.yaml#1 EC2NodeClass/default: ${message}`);
  });
});
