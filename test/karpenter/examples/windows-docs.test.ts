// The Windows fragments of karpenter.sh's EC2NodeClasses page (concepts/nodeclasses.md), unchanged
// (test/fixtures/karpenter-examples/README.md), each set inside an otherwise complete windows2022 EC2NodeClass: the
// documented Windows root volume (/dev/sda1, 50Gi) is the node's ephemeral-storage, and the ServiceCIDR workaround's
// userData runs before Karpenter's bootstrap, inside the one <powershell> block, as the page's "Merged UserData" shows.
import { beforeAll, describe, expect, it } from 'vitest';
import { parseManifests } from '../../../shared/api/parse';
import { parseQuantity } from '../../../shared/api/quantity';
import { userDataFor } from '../../../shared/aws/ec2/userdata';
import {
  docsExample,
  exampleText,
  loadSimulator,
  podsYaml,
  scratch,
  simulateFiles,
} from '../../../testkit/karpenter-examples';

const write = scratch('examples-windows');
const fragment = (name: string) => exampleText(docsExample(`concepts/nodeclasses/${name}`));

const POOL = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: windows2022 }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: windows2022 }
      requirements:
        - { key: kubernetes.io/os, operator: In, values: [windows] }
        - { key: node.kubernetes.io/instance-type, operator: In, values: [m5.xlarge] }
---
`;
/** A windows2022 EC2NodeClass around a page's `spec:` fragment. */
const windowsClass = (specFragment: string) => `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: { name: windows2022 }
${specFragment}  role: KarpenterNodeRole-test
  amiSelectorTerms: [{ alias: windows2022@latest }]
  subnetSelectorTerms: [{ tags: { karpenter.sh/discovery: test } }]
  securityGroupSelectorTerms: [{ tags: { karpenter.sh/discovery: test } }]
`;

beforeAll(loadSimulator);

describe('karpenter.sh concepts/nodeclasses.md Windows fragments, unchanged', () => {
  it('blockDeviceMappings (Windows2019/Windows2022/Windows2025): the 50Gi /dev/sda1 root volume is ephemeral-storage', async () => {
    const nodeClass = write('bdm.yaml', `${POOL}${windowsClass(fragment('windows-block-device-mappings'))}`);
    const pods = (storage: string) =>
      write(
        `pods-${storage}.yaml`,
        podsYaml([
          {
            name: 'iis',
            requests: { cpu: '1', memory: '2Gi', 'ephemeral-storage': storage },
            nodeSelector: { 'kubernetes.io/os': 'windows' },
          },
        ]),
      );
    const fits = await simulateFiles([nodeClass, pods('40Gi')]);
    expect(fits.code, fits.stderr).toBe(0);
    const [claim] = fits.out?.nodeClaims ?? [];
    expect(claim?.labels['kubernetes.io/os']).toBe('windows');
    expect(parseQuantity(claim?.capacity['ephemeral-storage'] ?? '0')).toBe(50 * 2 ** 30);
    const tooBig = await simulateFiles([nodeClass, pods('60Gi')]);
    expect(tooBig.out?.unschedulable.map((u) => u.pod)).toEqual(['default/iis']);
  });

  it('the ServiceCIDR workaround userData is merged ahead of the bootstrap, in one <powershell> block', () => {
    const text = windowsClass(fragment('windows-service-cidr-userdata'));
    const [nodeClass] = parseManifests(text, 'service-cidr.yaml').nodeClasses;
    expect(nodeClass?.spec.userData).toBe('$global:EKSCluster = Get-EKSCluster -Name my-cluster\n');
    const out = userDataFor('Windows2022', {
      cluster: {
        name: 'test-cluster',
        region: 'us-east-1',
        endpoint: 'https://test-cluster',
        caData: 'Y2EtYnVuZGxlCg==',
        serviceCidr: '10.0.100.0/24',
        kubernetesVersion: '1.31',
      },
      labels: { 'karpenter.sh/capacity-type': 'spot', 'karpenter.sh/nodepool': 'windows2022' },
      taints: [],
      kubelet: { maxPods: 110, clusterDNS: ['10.0.100.10'] },
      ...(nodeClass?.spec.userData ? { customUserData: nodeClass.spec.userData } : {}),
    });
    expect(out).toMatch(
      /^<powershell>\n\$global:EKSCluster = Get-EKSCluster -Name my-cluster\n\[string\]\$EKSBootstrapScriptFile = .*\n& \$EKSBootstrapScriptFile -EKSClusterName 'test-cluster' .*\n<\/powershell>$/,
    );
  });
});
