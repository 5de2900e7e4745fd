import { describe, expect, it } from 'vitest';
import { NODEPOOL_HEADER, problemsOf, VALID_NODECLASS, VALID_NODEPOOL } from '../../testkit/manifests';
import { parseManifests } from './parse';

/** A NodePool with `requirements` and `extra` spliced in; the problems it raises, with the prefix removed. */
function nodePoolProblems(requirements: string, extra = '', templateExtra = ''): string[] {
  const yaml = `${NODEPOOL_HEADER}spec:
  template:
${templateExtra}    spec:
      nodeClassRef: {name: default}
      requirements:
${requirements}
${extra}---
${VALID_NODECLASS}`;
  return problemsOf(yaml, 'nodepool.yaml').map((p) => p.replace('nodepool.yaml#1 NodePool/default: ', ''));
}

const req = (key: string, operator: string, values?: string, more = '') =>
  `        - key: ${key}\n          operator: ${operator}\n${values !== undefined ? `          values: ${values}\n` : ''}${more}`;

describe('NodePool validation', () => {
  it('accepts a valid NodePool', () => {
    expect(problemsOf(`${VALID_NODEPOOL}---\n${VALID_NODECLASS}`)).toEqual([]);
  });

  it('names file, document, kind, name and field path for a bad operator', () => {
    const yaml = `${VALID_NODECLASS}---\n${NODEPOOL_HEADER}spec:
  template:
    spec:
      nodeClassRef: {name: default}
      requirements:
${req('kubernetes.io/arch', 'In', '[amd64]')}${req('karpenter.k8s.aws/instance-category', 'Inn', '[c]')}`;
    expect(problemsOf(yaml, 'nodepool.yaml')).toEqual([
      'nodepool.yaml#2 NodePool/default: spec.template.spec.requirements[1].operator: "Inn" is not one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte',
    ]);
  });

  it.each([
    [
      req('a.io/x', 'In', '[]'),
      'spec.template.spec.requirements[0].values: must have at least one value for operator In',
    ],
    [
      req('a.io/x', 'NotIn'),
      'spec.template.spec.requirements[0].values: must have at least one value for operator NotIn',
    ],
    [req('a.io/x', 'Exists', '[a]'), 'spec.template.spec.requirements[0].values: must be empty for operator Exists'],
    [
      req('a.io/x', 'DoesNotExist', '[a]'),
      'spec.template.spec.requirements[0].values: must be empty for operator DoesNotExist',
    ],
    [
      req('a.io/x', 'Gt', '["1", "2"]'),
      'spec.template.spec.requirements[0].values: must have exactly one value for operator Gt',
    ],
    [
      req('a.io/x', 'Lt', '["ten"]'),
      'spec.template.spec.requirements[0].values[0]: "ten" must be an integer for operator Lt',
    ],
    [
      req('a.io/x', 'Gte', '[]'),
      'spec.template.spec.requirements[0].values: must have exactly one value for operator Gte',
    ],
    [
      req('a.io/x', 'In', '[2]'),
      'spec.template.spec.requirements[0].values[0]: must be a string, got 2 (quote it in YAML)',
    ],
    [
      req('a.io/x', 'In', '[a]', '          minValues: 2\n'),
      'spec.template.spec.requirements[0].minValues: must be at most the number of values (1) for operator In, got 2',
    ],
    [
      req('a.io/x', 'Exists', undefined, '          minValues: 0\n'),
      'spec.template.spec.requirements[0].minValues: must be between 1 and 50, got 0',
    ],
    [
      req('a.io/x', 'In', '[a]', '          minValues: 51\n'),
      'spec.template.spec.requirements[0].minValues: must be between 1 and 50, got 51',
    ],
    [
      req('-bad-', 'Exists'),
      "spec.template.spec.requirements[0].key: \"-bad-\" is not a valid label key: the name part must be 1-63 characters of letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
    ],
    ['        - operator: Exists\n', 'spec.template.spec.requirements[0].key: required'],
    ['        - key: a.io/x\n', 'spec.template.spec.requirements[0].operator: required'],
  ])('rejects requirement %#', (requirements, message) => {
    expect(nodePoolProblems(requirements)).toEqual([message]);
  });

  it('accepts Lte with one integer, and minValues up to the number of In values', () => {
    expect(
      nodePoolProblems(
        req('karpenter.k8s.aws/instance-cpu', 'Lte', '["16"]') +
          req('a.io/x', 'In', '[a, b]', '          minValues: 2\n'),
      ),
    ).toEqual([]);
  });

  it.each([
    ['karpenter.sh/nodepool', 'label "karpenter.sh/nodepool" is restricted'],
    ['kubernetes.io/hostname', 'label "kubernetes.io/hostname" is restricted'],
    ['kubernetes.io/custom', 'label domain "kubernetes.io" is restricted'],
    ['foo.k8s.io/x', 'label domain "k8s.io" is restricted'],
    ['karpenter.sh/custom', 'label domain "karpenter.sh" is restricted'],
    ['karpenter.k8s.aws/custom', 'label domain "karpenter.k8s.aws" is restricted'],
  ])('rejects the restricted requirement key %s', (key, message) => {
    expect(nodePoolProblems(req(key, 'Exists'))).toEqual([`spec.template.spec.requirements[0].key: ${message}`]);
  });

  it.each([
    'karpenter.sh/capacity-type',
    'node.kubernetes.io/instance-type',
    'topology.kubernetes.io/zone',
    'karpenter.k8s.aws/instance-family',
    'node.kubernetes.io/custom',
    'node-restriction.kubernetes.io/team',
    'kops.k8s.io/group',
    'example.com/team',
  ])('accepts the requirement key %s', (key) => {
    expect(nodePoolProblems(req(key, 'Exists'))).toEqual([]);
  });

  it('applies the same restrictions to template labels', () => {
    const labels =
      '    metadata:\n      labels:\n        karpenter.sh/nodepool: x\n        team: a\n        kubernetes.io/arch: arm64\n        karpenter.k8s.aws/foo: y\n';
    expect(nodePoolProblems(req('a.io/x', 'Exists'), '', labels)).toEqual([
      'spec.template.metadata.labels["karpenter.sh/nodepool"]: label "karpenter.sh/nodepool" is restricted',
      'spec.template.metadata.labels["karpenter.k8s.aws/foo"]: label domain "karpenter.k8s.aws" is restricted',
    ]);
  });

  it('rejects label values that are not strings or too long', () => {
    const labels = `    metadata:\n      labels:\n        team: 5\n        long: ${'x'.repeat(64)}\n`;
    expect(nodePoolProblems(req('a.io/x', 'Exists'), '', labels)).toEqual([
      'spec.template.metadata.labels["team"]: must be a string, got 5 (quote it in YAML)',
      `spec.template.metadata.labels["long"]: "${'x'.repeat(56)}... is not a valid label value: at most 63 characters of letters, digits, '-', '_' or '.', starting and ending with a letter or digit`,
    ]);
  });

  it('checks weight, durations and limits', () => {
    const extra = '  weight: 101\n  limits:\n    cpu: lots\n    memory: 1000Gi\n';
    const template = '';
    expect(
      nodePoolProblems(
        `${req('a.io/x', 'Exists')}      expireAfter: 30d\n      terminationGracePeriod: Never`,
        extra,
        template,
      ),
    ).toEqual([
      'spec.template.spec.expireAfter: "30d" is not a valid duration (for example 30s, 5m, 720h or Never)',
      'spec.template.spec.terminationGracePeriod: "Never" is not a valid duration (for example 30s, 5m or 720h)',
      'spec.limits["cpu"]: "lots" is not a valid quantity (for example 500m, 2, 512Mi, 1Gi)',
      'spec.weight: must be between 1 and 100, got 101',
    ]);
  });

  it('accepts Go durations and Never', () => {
    expect(
      nodePoolProblems(
        `${req('a.io/x', 'Exists')}      expireAfter: Never\n      terminationGracePeriod: 1h30m`,
        '  disruption:\n    consolidateAfter: 1m30s\n',
      ),
    ).toEqual([]);
  });

  it('checks disruption settings and budgets', () => {
    const disruption = `  disruption:
    consolidationPolicy: Sometimes
    consolidateAfter: soon
    budgets:
      - nodes: "101%"
      - nodes: "5"
        schedule: "0 9 * * 1-5"
      - nodes: "10%"
        duration: 8h
      - nodes: "0"
        schedule: "@fortnightly"
        duration: 30s
        reasons: [Empty, Expired]
      - schedule: "61 * * * *"
        duration: 1h30m
      - nodes: 3
`;
    expect(nodePoolProblems(req('a.io/x', 'Exists'), disruption)).toEqual([
      'spec.disruption.consolidationPolicy: "Sometimes" is not one of WhenEmpty, WhenEmptyOrUnderutilized, Balanced',
      'spec.disruption.consolidateAfter: "soon" is not a valid duration (for example 30s, 5m, 720h or Never)',
      'spec.disruption.budgets[0].nodes: "101%" must be a count ("5") or a percentage from 0% to 100% ("10%")',
      "spec.disruption.budgets[1]: 'schedule' must be set with 'duration'",
      "spec.disruption.budgets[2]: 'schedule' must be set with 'duration'",
      'spec.disruption.budgets[3].schedule: "@fortnightly" is not one of @annually, @yearly, @monthly, @weekly, @daily, @midnight, @hourly',
      'spec.disruption.budgets[3].duration: "30s" must be whole hours and/or minutes (for example 30m, 8h, 1h30m)',
      'spec.disruption.budgets[3].reasons[1]: "Expired" is not one of Underutilized, Empty, Drifted',
      'spec.disruption.budgets[4].nodes: required',
      'spec.disruption.budgets[4].schedule: "61 * * * *" is not a valid cron schedule: CronPattern: Invalid value for minute: 61',
      'spec.disruption.budgets[5].nodes: 3 must be a count ("5") or a percentage from 0% to 100% ("10%")',
    ]);
  });

  it('accepts budgets with a schedule and a duration', () => {
    const disruption = `  disruption:
    consolidationPolicy: WhenEmpty
    budgets:
      - nodes: "0"
        schedule: "0 9 * * mon-fri"
        duration: 8h
        reasons: [Drifted, Underutilized]
      - nodes: "100%"
        schedule: "@daily"
        duration: 1h30m
`;
    expect(nodePoolProblems(req('a.io/x', 'Exists'), disruption)).toEqual([]);
  });

  it('checks taints and the node class reference', () => {
    const yaml = `${NODEPOOL_HEADER}spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.sh, kind: NodeClass}
      requirements: []
      taints:
        - key: dedicated
          value: gpu
          effect: NoSchedul
      startupTaints:
        - effect: NoExecute
`;
    expect(problemsOf(yaml, 'np.yaml').map((p) => p.replace('np.yaml#1 NodePool/default: ', ''))).toEqual([
      'spec.template.spec.nodeClassRef.name: required',
      'spec.template.spec.nodeClassRef.group: "karpenter.sh" is not supported: use karpenter.k8s.aws',
      'spec.template.spec.nodeClassRef.kind: "NodeClass" is not supported: use EC2NodeClass',
      'spec.template.spec.taints[0].effect: "NoSchedul" is not one of NoSchedule, PreferNoSchedule, NoExecute',
      'spec.template.spec.startupTaints[0].key: required',
    ]);
  });

  it('requires the template, its node class reference and requirements', () => {
    expect(problemsOf(`${NODEPOOL_HEADER}spec: {}\n`, 'np.yaml')).toEqual([
      'np.yaml#1 NodePool/default: spec.template: required',
    ]);
    expect(problemsOf(`${NODEPOOL_HEADER}spec:\n  template:\n    spec: {}\n`, 'np.yaml')).toEqual([
      'np.yaml#1 NodePool/default: spec.template.spec.nodeClassRef: required',
      'np.yaml#1 NodePool/default: spec.template.spec.requirements: required',
    ]);
  });

  it('warns about v1beta1 fields that v1 ignores', () => {
    const yaml = `${NODEPOOL_HEADER}spec:
  template:
    spec:
      nodeClassRef: {name: default}
      requirements: []
      kubelet: {maxPods: 10}
  disruption:
    expireAfter: 24h
---
${VALID_NODECLASS}`;
    const { warnings } = (() => {
      const problems = problemsOf(yaml, 'np.yaml');
      expect(problems).toEqual([]);
      return { warnings: parseWarnings(yaml) };
    })();
    expect(warnings).toEqual([
      'np.yaml#1 NodePool/default: spec.template.spec.kubelet: moved to the EC2NodeClass (spec.kubelet) in Karpenter v1; ignored here — move it to the EC2NodeClass',
      'np.yaml#1 NodePool/default: spec.disruption.expireAfter: is a v1beta1 field; in v1 it is spec.template.spec.expireAfter, so it is ignored here — move it',
    ]);
  });
});

describe('NodePool capacity types', () => {
  it('accepts the reserved capacity type without a warning', () => {
    const yaml = `${NODEPOOL_HEADER}spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: kubernetes.io/arch, operator: In, values: [amd64]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [reserved, on-demand]}
---
${VALID_NODECLASS}`;
    expect(problemsOf(yaml, 'np.yaml')).toEqual([]);
    expect(parseWarnings(yaml)).toEqual([]);
  });
});

function parseWarnings(yaml: string): string[] {
  return parseManifests(yaml, 'np.yaml').warnings;
}
