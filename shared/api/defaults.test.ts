import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { problemsOf, VALID_NODECLASS, VALID_NODEPOOL } from '../../testkit/manifests';
import { defaultNodePool } from './default-nodepool';
import { defaultBlockDeviceMappings, ephemeralBlockDevice, withNodeClassDefaults } from './defaults';
import { parseManifests } from './parse';

describe('Karpenter v1 defaults', () => {
  const set = parseManifests(`${VALID_NODEPOOL}---\n${VALID_NODECLASS}`, 'd.yaml');

  it('fills in the NodePool defaults', () => {
    const np = set.nodePools[0];
    expect(np?.spec.weight).toBe(0);
    expect(np?.spec.disruption).toEqual({
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
      consolidateAfter: '0s',
      budgets: [{ nodes: '10%' }],
    });
    expect(np?.spec.template.spec.expireAfter).toBe('720h');
    expect(np?.spec.template.spec.nodeClassRef).toEqual({
      group: 'karpenter.k8s.aws',
      kind: 'EC2NodeClass',
      name: 'default',
    });
  });

  it('keeps what the user set', () => {
    const custom = parseManifests(
      VALID_NODEPOOL.replace(
        'spec:\n  template:',
        'spec:\n  weight: 50\n  disruption:\n    consolidationPolicy: WhenEmpty\n    consolidateAfter: 5m\n    budgets: [{nodes: "1"}]\n  template:',
      ).replace('      requirements:', '      expireAfter: Never\n      requirements:'),
      'd.yaml',
    ).nodePools[0];
    expect(custom?.spec.weight).toBe(50);
    expect(custom?.spec.disruption).toEqual({
      consolidationPolicy: 'WhenEmpty',
      consolidateAfter: '5m',
      budgets: [{ nodes: '1' }],
    });
    expect(custom?.spec.template.spec.expireAfter).toBe('Never');
  });

  it('fills in the EC2NodeClass defaults from the alias', () => {
    const nc = set.nodeClasses[0];
    expect(nc?.spec.amiFamily).toBe('AL2023');
    expect(nc?.spec.metadataOptions).toEqual({
      httpEndpoint: 'enabled',
      httpProtocolIPv6: 'disabled',
      httpPutResponseHopLimit: 1,
      httpTokens: 'required',
    });
    expect(nc?.spec.blockDeviceMappings).toEqual([
      { deviceName: '/dev/xvda', ebs: { volumeSize: '20Gi', volumeType: 'gp3', encrypted: true } },
    ]);
  });

  it('merges partial metadata options and keeps given block devices', () => {
    const nc = withNodeClassDefaults({
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name: 'x' },
      spec: {
        amiFamily: 'Custom',
        amiSelectorTerms: [{ id: 'ami-1' }],
        subnetSelectorTerms: [{ id: 'subnet-1' }],
        securityGroupSelectorTerms: [{ id: 'sg-1' }],
        metadataOptions: { httpPutResponseHopLimit: 2 },
        blockDeviceMappings: [{ deviceName: '/dev/sdb', rootVolume: true, ebs: { volumeSize: '100Gi' } }],
      },
    });
    expect(nc.spec.metadataOptions).toEqual({
      httpEndpoint: 'enabled',
      httpProtocolIPv6: 'disabled',
      httpPutResponseHopLimit: 2,
      httpTokens: 'required',
    });
    expect(ephemeralBlockDevice(nc.spec)?.deviceName).toBe('/dev/sdb');
  });

  it('gives each AMI family its block devices', () => {
    expect(defaultBlockDeviceMappings('Bottlerocket').map((b) => `${b.deviceName}=${b.ebs?.volumeSize}`)).toEqual([
      '/dev/xvda=4Gi',
      '/dev/xvdb=20Gi',
    ]);
    expect(defaultBlockDeviceMappings('AL2').map((b) => `${b.deviceName}=${b.ebs?.volumeSize}`)).toEqual([
      '/dev/xvda=20Gi',
    ]);
    expect(defaultBlockDeviceMappings('Custom')).toEqual([]);
    const br = parseManifests(VALID_NODECLASS.replace('al2023@latest', 'bottlerocket@latest'), 'b.yaml').nodeClasses[0];
    expect(br?.spec.amiFamily).toBe('Bottlerocket');
    expect(
      ephemeralBlockDevice(
        br?.spec ?? { amiSelectorTerms: [], subnetSelectorTerms: [], securityGroupSelectorTerms: [] },
      )?.ebs?.volumeSize,
    ).toBe('20Gi');
  });
});

describe('defaultNodePool', () => {
  const { nodePool, nodeClass } = defaultNodePool();

  it('is linux/amd64, spot and on-demand, c/m/r, generation > 2', () => {
    expect(nodePool.metadata.name).toBe('default');
    expect(nodePool.spec.template.spec.requirements).toEqual([
      { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
      { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] },
      { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm', 'r'] },
      { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt', values: ['2'] },
    ]);
    expect(nodePool.spec.template.spec.nodeClassRef.name).toBe(nodeClass.metadata.name);
    expect(nodeClass.spec.amiSelectorTerms).toEqual([{ alias: 'al2023@latest' }]);
    expect(nodeClass.spec.amiFamily).toBe('AL2023');
  });

  it('passes our own validation once the in-memory weight 0 (meaning unset) is dropped', () => {
    const { weight, ...spec } = nodePool.spec;
    expect(weight).toBe(0);
    expect(problemsOf(`${stringify({ ...nodePool, spec })}---\n${stringify(nodeClass)}`)).toEqual([]);
  });
});
