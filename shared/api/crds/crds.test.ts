import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { VALID_NODECLASS, VALID_NODEPOOL } from '../../../testkit/manifests';
import { defaultNodePool } from '../default-nodepool';
import { loadDocuments } from '../parse';
import { crdsYaml, ec2NodeClassCRD, karplessCRDs, nodePoolCRD } from './index';
import type { CustomResourceDefinition, Schema } from './schema';

function compile(crd: CustomResourceDefinition, useDefaults = false): ValidateFunction {
  // CEL rules and Kubernetes extensions are not JSON Schema; ajv checks everything else.
  const ajv = new Ajv({ strict: false, allErrors: true, useDefaults, validateFormats: false });
  for (const k of [
    'x-kubernetes-validations',
    'x-kubernetes-int-or-string',
    'x-kubernetes-list-type',
    'x-kubernetes-preserve-unknown-fields',
  ]) {
    ajv.addKeyword(k);
  }
  const schema = crd.spec.versions[0]?.schema.openAPIV3Schema;
  if (!schema) throw new Error('no schema');
  return ajv.compile(schema);
}

const fromYaml = (text: string): Record<string, unknown> =>
  parseAllDocuments(text)[0]?.toJS() as Record<string, unknown>;
const clone = <T>(v: T): T => structuredClone(v);

/** Sets (or, with undefined, deletes) the value at a dotted path such as `spec.requirements.0.operator`. */
function setPath(doc: unknown, path: string, value: unknown): void {
  const keys = path.split('.');
  const last = keys.pop() as string;
  let node = doc as Record<string, unknown>;
  for (const k of keys) {
    node[k] ??= {};
    node = node[k] as Record<string, unknown>;
  }
  if (value === undefined) delete node[last];
  else node[last] = value;
}

function getPath(doc: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((node, k) => (node as Record<string, unknown> | undefined)?.[k], doc);
}

/** The cluster example is one set; each scenario manifest is an alternative to the others (they share names), so
 * each file is loaded on its own. */
async function loadExamples(): Promise<{ documents: { raw: { kind?: unknown } & Record<string, unknown> }[] }> {
  const root = join(import.meta.dirname, '..', '..', '..', 'examples');
  const scenarios = join(root, 'scenarios', 'manifests');
  const inputs = [[join(root, 'cluster')], ...readdirSync(scenarios).map((file) => [join(scenarios, file)])];
  const sets = await Promise.all(inputs.map((paths) => loadDocuments(paths)));
  return { documents: sets.flatMap((set) => set.documents) };
}

describe('CRDs', () => {
  it('describes both kinds as cluster-scoped v1 resources', () => {
    const [np, nc] = karplessCRDs();
    expect(np?.metadata.name).toBe('nodepools.karpenter.sh');
    expect(nc?.metadata.name).toBe('ec2nodeclasses.karpenter.k8s.aws');
    for (const crd of [np, nc]) {
      expect(crd?.apiVersion).toBe('apiextensions.k8s.io/v1');
      expect(crd?.spec.scope).toBe('Cluster');
      expect(crd?.spec.versions.map((v) => [v.name, v.served, v.storage])).toEqual([['v1', true, true]]);
    }
    // Karpenter's scale subresource on NodePools: `kubectl scale nodepool` sets a static pool's replicas.
    expect(np?.spec.versions[0]?.subresources).toEqual({
      status: {},
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.nodes' },
    });
    expect(nc?.spec.versions[0]?.subresources).toEqual({ status: {} });
    const spec = np?.spec.versions[0]?.schema.openAPIV3Schema.properties?.spec;
    expect(spec?.required).toEqual(['template']);
    expect(spec?.properties?.weight).toMatchObject({ minimum: 1, maximum: 100 });
    expect(nc?.spec.versions[0]?.schema.openAPIV3Schema.properties?.spec?.required).toEqual([
      'amiSelectorTerms',
      'subnetSelectorTerms',
      'securityGroupSelectorTerms',
    ]);
  });

  it("prints Karpenter v1's columns, reading the published status", () => {
    const columns = (crd: CustomResourceDefinition) =>
      crd.spec.versions[0]?.additionalPrinterColumns?.map((c) => [c.name, c.type, c.jsonPath, c.priority ?? 0]);
    const ready = '.status.conditions[?(@.type=="Ready")].status';
    expect(columns(nodePoolCRD())).toEqual([
      ['NodeClass', 'string', '.spec.template.spec.nodeClassRef.name', 0],
      ['Nodes', 'string', '.status.nodes', 0],
      ['Ready', 'string', ready, 0],
      ['Age', 'date', '.metadata.creationTimestamp', 0],
      ['Weight', 'integer', '.spec.weight', 1],
    ]);
    expect(columns(ec2NodeClassCRD())).toEqual([
      ['Ready', 'string', ready, 0],
      ['Age', 'date', '.metadata.creationTimestamp', 0],
      ['Role', 'string', '.spec.role', 1],
    ]);
  });

  it('is a structural schema: every node has a type, or is an int-or-string', () => {
    const walk = (s: Schema, path: string): string[] => {
      const bad = s.type || s['x-kubernetes-int-or-string'] ? [] : [path];
      const children = [
        ...Object.entries(s.properties ?? {}).map(([k, v]) => walk(v, `${path}.${k}`)),
        ...(s.items ? [walk(s.items, `${path}[]`)] : []),
        ...(s.additionalProperties ? [walk(s.additionalProperties, `${path}{}`)] : []),
      ];
      return bad.concat(...children);
    };
    for (const crd of karplessCRDs()) {
      const root = crd.spec.versions[0]?.schema.openAPIV3Schema as Schema;
      expect(walk(root, crd.spec.names.kind)).toEqual([]);
    }
  });

  it('carries Karpenter rules as CEL, including the restricted label domains', () => {
    const key =
      nodePoolCRD().spec.versions[0]?.schema.openAPIV3Schema.properties?.spec?.properties?.template?.properties?.spec
        ?.properties?.requirements?.items?.properties?.key;
    const messages = key?.['x-kubernetes-validations']?.map((r) => r.message);
    expect(messages).toEqual([
      'label domain "kubernetes.io" is restricted',
      'label domain "k8s.io" is restricted',
      'label domain "karpenter.sh" is restricted',
      'label domain "karpenter.k8s.aws" is restricted',
      'label "karpenter.sh/nodepool" is restricted',
      'label "kubernetes.io/hostname" is restricted',
    ]);
    const kubernetesRule = key?.['x-kubernetes-validations']?.[0]?.rule ?? '';
    expect(kubernetesRule).toContain('"kubernetes.io/arch"');
    expect(kubernetesRule).toContain('self.find("^([^/]+)").endsWith("node.kubernetes.io")');
    expect(kubernetesRule).not.toContain('"kubernetes.io/hostname"');
    const ncRules =
      ec2NodeClassCRD().spec.versions[0]?.schema.openAPIV3Schema.properties?.spec?.['x-kubernetes-validations'];
    expect(ncRules?.[0]?.message).toBe("must specify exactly one of ['role', 'instanceProfile']");
  });

  it('prints every CRD, NodeOverlay and NodeClaim included, as multi-document YAML', () => {
    const docs = parseAllDocuments(crdsYaml()).map((d) => d.toJS());
    expect(docs.map((d) => d.metadata.name)).toEqual([
      'nodepools.karpenter.sh',
      'ec2nodeclasses.karpenter.k8s.aws',
      'nodeoverlays.karpenter.sh',
      'nodeclaims.karpenter.sh',
    ]);
    expect(docs[0]).toEqual(JSON.parse(JSON.stringify(nodePoolCRD())));
  });

  describe('NodePool schema', () => {
    const validate = compile(nodePoolCRD());

    it('accepts our examples, the embedded default and a converted v1alpha5 Provisioner', async () => {
      const examples = await loadExamples();
      const seed = await loadDocuments([
        join(import.meta.dirname, '..', 'convert', 'testdata', 'seed-provisioner.yaml'),
      ]);
      const { weight: _unset, ...defaultSpec } = defaultNodePool().nodePool.spec;
      const nodePools = [
        ...examples.documents.filter((d) => d.raw.kind === 'NodePool').map((d) => d.raw),
        ...seed.documents.filter((d) => d.raw.kind === 'NodePool').map((d) => d.raw),
        fromYaml(VALID_NODEPOOL),
        { ...defaultNodePool().nodePool, spec: defaultSpec },
      ];
      expect(nodePools.length).toBeGreaterThanOrEqual(4);
      for (const np of nodePools) {
        expect(validate(np) ? [] : validate.errors).toEqual([]);
      }
    });

    it.each([
      [
        'an unknown operator',
        'spec.template.spec.requirements.0.operator',
        'Inn',
        '/spec/template/spec/requirements/0/operator',
      ],
      ['weight 0', 'spec.weight', 0, '/spec/weight'],
      ['a bad budget', 'spec.disruption', { budgets: [{ nodes: '110%' }] }, '/spec/disruption/budgets/0/nodes'],
      ['a bad duration', 'spec.template.spec.expireAfter', '30d', '/spec/template/spec/expireAfter'],
      [
        'a bad taint effect',
        'spec.template.spec.taints',
        [{ key: 'a', effect: 'Never' }],
        '/spec/template/spec/taints/0/effect',
      ],
      [
        'a missing node class name',
        'spec.template.spec.nodeClassRef.name',
        undefined,
        '/spec/template/spec/nodeClassRef',
      ],
      ['minValues 0', 'spec.template.spec.requirements.0.minValues', 0, '/spec/template/spec/requirements/0/minValues'],
      ['a bad limit', 'spec.limits', { cpu: 'lots' }, '/spec/limits/cpu'],
    ])('rejects %s', (_name, field, value, path) => {
      const np = fromYaml(VALID_NODEPOOL);
      setPath(np, field, value);
      expect(validate(np)).toBe(false);
      expect(validate.errors?.map((e) => e.instancePath)).toContain(path);
    });

    it('fills in the same defaults as the parser', () => {
      const withDefaults = compile(nodePoolCRD(), true);
      const np = fromYaml(VALID_NODEPOOL);
      expect(withDefaults(np)).toBe(true);
      expect(getPath(np, 'spec.disruption')).toEqual({
        consolidationPolicy: 'WhenEmptyOrUnderutilized',
        consolidateAfter: '0s',
        budgets: [{ nodes: '10%' }],
      });
      expect(getPath(np, 'spec.template.spec.expireAfter')).toBe('720h');
    });
  });

  describe('EC2NodeClass schema', () => {
    const validate = compile(ec2NodeClassCRD());

    it('accepts our examples and the embedded default', async () => {
      const examples = await loadExamples();
      const classes = [
        ...examples.documents.filter((d) => d.raw.kind === 'EC2NodeClass').map((d) => d.raw),
        fromYaml(VALID_NODECLASS),
        clone(defaultNodePool().nodeClass),
      ];
      for (const nc of classes) expect(validate(nc) ? [] : validate.errors).toEqual([]);
    });

    it.each([
      ['empty subnet terms', 'spec.subnetSelectorTerms', [], '/spec/subnetSelectorTerms'],
      ['no security group terms', 'spec.securityGroupSelectorTerms', undefined, '/spec'],
      ['a bad amiFamily', 'spec.amiFamily', 'Ubuntu', '/spec/amiFamily'],
      ['a bad httpTokens', 'spec.metadataOptions', { httpTokens: 'sometimes' }, '/spec/metadataOptions/httpTokens'],
      ['a bad subnet id', 'spec.subnetSelectorTerms', [{ id: 'sn-1' }], '/spec/subnetSelectorTerms/0/id'],
      [
        'a bad volume size',
        'spec.blockDeviceMappings',
        [{ deviceName: '/dev/xvda', ebs: { volumeSize: '100GB' } }],
        '/spec/blockDeviceMappings/0/ebs/volumeSize',
      ],
      ['a negative maxPods', 'spec.kubelet', { maxPods: -1 }, '/spec/kubelet/maxPods'],
      [
        'a bad capacity reservation id',
        'spec.capacityReservationSelectorTerms',
        [{ id: 'odcr-1' }],
        '/spec/capacityReservationSelectorTerms/0/id',
      ],
    ])('rejects %s', (_name, field, value, path) => {
      const nc = fromYaml(VALID_NODECLASS);
      setPath(nc, field, value);
      expect(validate(nc)).toBe(false);
      expect(validate.errors?.map((e) => e.instancePath)).toContain(path);
    });

    it("carries Karpenter's capacity reservation term rules as CEL: an id stands alone, tags, an id or instanceMatchCriteria required", () => {
      const terms =
        ec2NodeClassCRD().spec.versions[0]?.schema.openAPIV3Schema.properties?.spec?.properties
          ?.capacityReservationSelectorTerms;
      expect(terms?.['x-kubernetes-validations']).toEqual([
        {
          message: "expected at least one, got none, ['tags', 'id', 'instanceMatchCriteria']",
          rule: 'self.all(x, has(x.tags) || has(x.id) || has(x.instanceMatchCriteria))',
        },
        {
          message:
            "'id' is mutually exclusive, cannot be set along with other fields in a capacity reservation selector term",
          rule: '!self.exists(x, has(x.id) && (has(x.tags) || has(x.ownerID) || has(x.instanceMatchCriteria)))',
        },
      ]);
      expect(terms?.items?.properties?.instanceMatchCriteria?.enum).toEqual(['open', 'targeted']);
    });

    it('types status.capacityReservations as Karpenter does, keeping the rest of the status', () => {
      const status = ec2NodeClassCRD().spec.versions[0]?.schema.openAPIV3Schema.properties?.status;
      const item = status?.properties?.capacityReservations?.items;
      expect(Object.keys(item?.properties ?? {}).sort()).toEqual([
        'availabilityZone',
        'endTime',
        'id',
        'instanceMatchCriteria',
        'instanceType',
        'interruptible',
        'ownerID',
        'reservationType',
        'state',
      ]);
      expect(item?.properties?.reservationType?.enum).toEqual(['default', 'capacity-block']);
      expect(item?.properties?.interruptible?.type).toBe('boolean');
      expect(status?.['x-kubernetes-preserve-unknown-fields']).toBe(true);
    });

    it("accepts Karpenter's capacityReservationSelectorTerms, so such a class applies unchanged", () => {
      const nc = fromYaml(VALID_NODECLASS);
      setPath(nc, 'spec.capacityReservationSelectorTerms', [
        { id: 'cr-0123456789abcdef0' },
        { tags: { team: 'ml' }, ownerID: '111122223333' },
      ]);
      expect(validate(nc) ? [] : validate.errors).toEqual([]);
    });

    it('defaults metadata options like the parser', () => {
      const withDefaults = compile(ec2NodeClassCRD(), true);
      const nc = fromYaml(VALID_NODECLASS);
      expect(withDefaults(nc)).toBe(true);
      expect(getPath(nc, 'spec.metadataOptions')).toEqual(defaultNodePool().nodeClass.spec.metadataOptions);
    });
  });

  it('round-trips through YAML unchanged', () => {
    for (const crd of karplessCRDs()) expect(fromYaml(stringify(crd))).toEqual(JSON.parse(JSON.stringify(crd)));
  });
});
