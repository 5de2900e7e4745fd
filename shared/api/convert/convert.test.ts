import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { problemsOf } from '../../../testkit/manifests';
import { parseManifests } from '../parse';

const SEED = readFileSync(join(import.meta.dirname, 'testdata', 'seed-provisioner.yaml'), 'utf8');

const PROVISIONER = 'apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\n';
const TEMPLATE = 'apiVersion: karpenter.k8s.aws/v1alpha1\nkind: AWSNodeTemplate\n';
const template = (name: string, extra = '') =>
  `${TEMPLATE}metadata: {name: ${name}}\nspec:\n  instanceProfile: NodeProfile\n  subnetSelector: {karpenter.sh/discovery: demo}\n  securityGroupSelector: {karpenter.sh/discovery: demo}\n${extra}`;

describe('v1alpha5 conversion', () => {
  it('converts the seed Provisioner and AWSNodeTemplate to v1', () => {
    const set = parseManifests(SEED, 'seed.yaml');
    expect(set.nodePools).toHaveLength(1);
    const np = set.nodePools[0];
    expect(np?.apiVersion).toBe('karpenter.sh/v1');
    expect(np?.metadata.name).toBe('default');
    expect(np?.spec.weight).toBe(100);
    expect(np?.spec.disruption).toEqual({
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
      consolidateAfter: '0s',
      budgets: [{ nodes: '10%' }],
    });
    expect(np?.spec.template.spec.expireAfter).toBe('Never');
    expect(np?.spec.template.spec.nodeClassRef).toEqual({
      group: 'karpenter.k8s.aws',
      kind: 'EC2NodeClass',
      name: 'default',
    });
    expect(np?.spec.template.spec.requirements).toEqual([
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
      { key: 'karpenter.k8s.aws/instance-size', operator: 'In', values: ['small', 'medium', 'large'] },
      { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
      { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
      { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm', 'r'] },
      { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt', values: ['2'] },
    ]);
    const nc = set.nodeClasses[0];
    expect(nc?.spec).toMatchObject({
      amiFamily: 'AL2',
      amiSelectorTerms: [{ alias: 'al2@latest' }],
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'karpenter-poc' } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'karpenter-poc' } }],
    });
    expect(set.warnings).toEqual([
      'seed.yaml#1 Provisioner/default: spec.requirements: added kubernetes.io/os In [linux]: v1alpha5 defaulted it, v1 does not',
      'seed.yaml#1 Provisioner/default: spec.requirements: added karpenter.k8s.aws/instance-category In [c, m, r]: v1alpha5 defaulted it, v1 does not',
      'seed.yaml#1 Provisioner/default: spec.requirements: added karpenter.k8s.aws/instance-generation Gt [2]: v1alpha5 defaulted it, v1 does not',
      'seed.yaml#1 Provisioner/default: spec.ttlSecondsUntilExpired: was not set, so v1alpha5 nodes never expired; v1 defaults expireAfter to 720h, so expireAfter: Never is written',
      'seed.yaml#1 Provisioner/default: spec.consolidation.enabled: true becomes spec.disruption.consolidationPolicy: WhenEmptyOrUnderutilized with consolidateAfter: 0s',
      'seed.yaml#1 Provisioner/default: converted to NodePool/default (karpenter.sh/v1)',
      'seed.yaml#2 AWSNodeTemplate/default: spec.amiFamily: not set (v1alpha5 used AL2), so AL2 becomes amiSelectorTerms alias al2@latest (the latest EKS-optimized AMI, as before)',
      'seed.yaml#2 AWSNodeTemplate/default: spec.instanceProfile: was not set (v1alpha5 used settings.aws.defaultInstanceProfile); set spec.role or spec.instanceProfile on the EC2NodeClass before applying it',
      'seed.yaml#2 AWSNodeTemplate/default: converted to EC2NodeClass/default (karpenter.k8s.aws/v1)',
      'seed.yaml#2 EC2NodeClass/default: spec: neither role nor instanceProfile is set; Karpenter requires exactly one before nodes can launch',
    ]);
  });

  it('maps emptiness and expiry TTLs, labels, taints, limits and weight', () => {
    const set = parseManifests(
      `${PROVISIONER}metadata: {name: batch}
spec:
  ttlSecondsAfterEmpty: 30
  ttlSecondsUntilExpired: 2592000
  labels: {team: ml, karpenter.sh/provisioner-name: batch}
  annotations: {owner: ml-team}
  taints: [{key: dedicated, value: ml, effect: NoSchedule}]
  startupTaints: [{key: init, effect: NoExecute}]
  limits:
    resources: {cpu: 1000, memory: 1000Gi}
  requirements:
    - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}
    - {key: karpenter.k8s.aws/instance-pods, operator: Gt, values: ["10"]}
    - {key: kubernetes.io/os, operator: In, values: [linux]}
    - {key: kubernetes.io/arch, operator: In, values: [arm64]}
    - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
  providerRef: {name: shared}
---
${template('shared')}`,
      'p.yaml',
    );
    const np = set.nodePools[0];
    expect(np?.spec.disruption).toMatchObject({ consolidationPolicy: 'WhenEmpty', consolidateAfter: '30s' });
    expect(np?.spec.template.spec.expireAfter).toBe('2592000s');
    expect(np?.spec.template.metadata).toEqual({ labels: { team: 'ml' }, annotations: { owner: 'ml-team' } });
    expect(np?.spec.template.spec.taints).toEqual([{ key: 'dedicated', value: 'ml', effect: 'NoSchedule' }]);
    expect(np?.spec.template.spec.startupTaints).toEqual([{ key: 'init', effect: 'NoExecute' }]);
    expect(np?.spec.limits).toEqual({ cpu: 1000, memory: '1000Gi' });
    expect(np?.spec.template.spec.requirements.map((r) => r.key)).toEqual([
      'node.kubernetes.io/instance-type',
      'kubernetes.io/os',
      'kubernetes.io/arch',
      'karpenter.sh/capacity-type',
    ]);
    expect(set.warnings).toContain(
      'p.yaml#1 Provisioner/batch: spec.requirements[1].key: karpenter.k8s.aws/instance-pods no longer exists in v1; the requirement is dropped',
    );
    expect(set.warnings).toContain(
      'p.yaml#1 Provisioner/batch: spec.ttlSecondsAfterEmpty: becomes spec.disruption.consolidationPolicy: WhenEmpty with consolidateAfter: 30s',
    );
    expect(set.warnings).toContain(
      'p.yaml#1 Provisioner/batch: spec.labels["karpenter.sh/provisioner-name"]: dropped: Karpenter sets karpenter.sh/nodepool itself',
    );
  });

  it('keeps v1alpha5 behaviour when neither consolidation nor emptiness TTL is set', () => {
    const set = parseManifests(
      `${PROVISIONER}metadata: {name: p}\nspec:\n  providerRef: {name: t}\n---\n${template('t')}`,
      'p.yaml',
    );
    expect(set.nodePools[0]?.spec.disruption).toMatchObject({
      consolidationPolicy: 'WhenEmpty',
      consolidateAfter: 'Never',
    });
  });

  it('rejects consolidation together with ttlSecondsAfterEmpty, and Ubuntu', () => {
    expect(
      problemsOf(
        `${PROVISIONER}metadata: {name: p}\nspec:\n  consolidation: {enabled: true}\n  ttlSecondsAfterEmpty: 30\n  providerRef: {name: t}\n---\n${template('t', '  amiFamily: Ubuntu\n')}`,
        'p.yaml',
      ),
    ).toEqual([
      'p.yaml#1 Provisioner/p: spec: consolidation.enabled and ttlSecondsAfterEmpty are mutually exclusive',
      'p.yaml#2 AWSNodeTemplate/t: spec.amiFamily: Ubuntu is not supported by Karpenter v1: use amiFamily Custom with your own userData',
    ]);
  });

  it('refuses a negative Gt/Lt bound, which a v1 NodePool cannot carry, naming the Provisioner field', () => {
    const req = (op: string, v: string) =>
      `    - {key: karpenter.k8s.aws/instance-cpu, operator: ${op}, values: ["${v}"]}\n`;
    expect(
      problemsOf(
        `${PROVISIONER}metadata: {name: p}\nspec:\n  providerRef: {name: t}\n  requirements:\n${req('Gt', '-1')}${req('Lt', '8')}---\n${template('t')}`,
        'p.yaml',
      ),
    ).toEqual([
      'p.yaml#1 Provisioner/p: spec.requirements[0].values[0]: "-1" must be a non-negative integer for operator Gt: a v1 NodePool refuses a negative bound',
    ]);
  });

  it('turns an inline provider into an EC2NodeClass named after the Provisioner, with its kubelet', () => {
    const set = parseManifests(
      `${PROVISIONER}metadata: {name: gpu}
spec:
  kubeletConfiguration: {maxPods: 20, containerRuntime: dockerd}
  provider:
    amiFamily: Bottlerocket
    instanceProfile: NodeProfile
    subnetSelector: {aws-ids: "subnet-1, subnet-2"}
    securityGroupSelector: {Name: "web,api", env: prod}
    tags: {team: ml}
    launchTemplate: legacy-lt
`,
      'p.yaml',
    );
    expect(set.nodePools[0]?.spec.template.spec.nodeClassRef.name).toBe('gpu');
    const nc = set.nodeClasses[0];
    expect(nc?.metadata.name).toBe('gpu');
    expect(nc?.spec).toMatchObject({
      amiFamily: 'Bottlerocket',
      amiSelectorTerms: [{ alias: 'bottlerocket@latest' }],
      subnetSelectorTerms: [{ id: 'subnet-1' }, { id: 'subnet-2' }],
      securityGroupSelectorTerms: [{ tags: { Name: 'web', env: 'prod' } }, { tags: { Name: 'api', env: 'prod' } }],
      instanceProfile: 'NodeProfile',
      tags: { team: 'ml' },
      kubelet: { maxPods: 20 },
    });
    expect(set.warnings).toContain(
      'p.yaml#1 Provisioner/gpu: spec.kubeletConfiguration.containerRuntime: dropped: v1 supports containerd only',
    );
    expect(set.warnings).toContain(
      'p.yaml#1 Provisioner/gpu: spec.provider.launchTemplate: unmanaged launch templates were removed in v1beta1 and the field is dropped: move its AMI, security groups and user data into the EC2NodeClass',
    );
  });

  it('gives a Provisioner with different kubelet settings its own copy of a shared node class', () => {
    const set = parseManifests(
      `${PROVISIONER}metadata: {name: a}\nspec:\n  kubeletConfiguration: {maxPods: 50}\n  providerRef: {name: shared}
---
${PROVISIONER}metadata: {name: b}\nspec:\n  kubeletConfiguration: {maxPods: 110}\n  providerRef: {name: shared}
---
${PROVISIONER}metadata: {name: c}\nspec:\n  kubeletConfiguration: {maxPods: 50}\n  providerRef: {name: shared}
---
${template('shared')}`,
      'p.yaml',
    );
    expect(set.nodeClasses.map((c) => [c.metadata.name, c.spec.kubelet?.maxPods])).toEqual([
      ['shared', 50],
      ['shared-b', 110],
    ]);
    expect(set.nodePools.map((n) => n.spec.template.spec.nodeClassRef.name)).toEqual(['shared', 'shared-b', 'shared']);
  });

  it('converts AMI selectors to id, name and owner terms', () => {
    const set = parseManifests(
      `${template('ids', '  amiFamily: AL2\n  amiSelector: {aws::ids: "ami-1,ami-2"}\n')}---\n${template('names', '  amiSelector: {aws::name: "a,b", aws::owners: "self"}\n')}`,
      't.yaml',
    );
    expect(set.nodeClasses[0]?.spec).toMatchObject({
      amiFamily: 'AL2',
      amiSelectorTerms: [{ id: 'ami-1' }, { id: 'ami-2' }],
    });
    expect(set.nodeClasses[1]?.spec).toMatchObject({
      amiFamily: 'AL2',
      amiSelectorTerms: [
        { name: 'a', owner: 'self' },
        { name: 'b', owner: 'self' },
      ],
    });
  });

  it('rewrites legacy pod selectors and annotations', () => {
    const set = parseManifests(
      `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    metadata:
      annotations: {karpenter.sh/do-not-evict: "true"}
    spec:
      nodeSelector: {karpenter.sh/provisioner-name: default}
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions:
                  - {key: karpenter.sh/provisioner-name, operator: DoesNotExist}
      containers: [{name: app}]
`,
      'w.yaml',
    );
    const tpl = set.deployments[0]?.spec.template;
    expect(tpl?.metadata?.annotations).toEqual({ 'karpenter.sh/do-not-disrupt': 'true' });
    expect(tpl?.spec.nodeSelector).toEqual({ 'karpenter.sh/nodepool': 'default' });
    expect(
      tpl?.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]
        ?.matchExpressions?.[0]?.key,
    ).toBe('karpenter.sh/nodepool');
    expect(set.warnings).toEqual([
      'w.yaml#1 Deployment/web: spec.template.metadata.annotations["karpenter.sh/do-not-evict"]: becomes karpenter.sh/do-not-disrupt',
      'w.yaml#1 Deployment/web: spec.template.spec.nodeSelector["karpenter.sh/provisioner-name"]: becomes karpenter.sh/nodepool',
      'w.yaml#1 Deployment/web: spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key: karpenter.sh/provisioner-name becomes karpenter.sh/nodepool',
    ]);
  });

  it('validates the converted objects as v1', () => {
    expect(
      problemsOf(`${TEMPLATE}metadata: {name: t}\nspec:\n  instanceProfile: P\n  subnetSelector: {a: b}\n`, 't.yaml'),
    ).toEqual(['t.yaml#1 AWSNodeTemplate/t: spec.securityGroupSelector: required']);
  });
});
