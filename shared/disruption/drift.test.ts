import { describe, expect, it } from 'vitest';
import { node, nodeClass, pool } from '../../testkit/disruption';
import { CLAIM_HASH_VERSION, specHash } from '../api/hash';
import type { NodeSelectorRequirementWithMinValues } from '../api/karpenter';
import { driftReason, labelSatisfies, nodeClassHash } from './drift';

describe('drift', () => {
  it('is not drift when nothing changed', () => {
    const p = pool();
    const n = node('a', { pool: p });
    expect(driftReason(n, p, nodeClass, undefined)).toBeUndefined();
  });

  it('compares the recorded hashes only when they are of the current version', () => {
    const p = pool();
    const n = node('a', { pool: p });
    // A hash computed some other way: drift at the current version, not compared at an older one (or none).
    n.claim.nodePoolHash = specHash(p.spec.template);
    n.claim.nodeClassHash = 'other';
    expect(driftReason(n, p, nodeClass, undefined)).toMatch(/template changed/);
    n.claim.hashVersion = CLAIM_HASH_VERSION - 1;
    expect(driftReason(n, p, nodeClass, undefined)).toBeUndefined();
    delete n.claim.hashVersion;
    expect(driftReason(n, p, nodeClass, undefined)).toBeUndefined();
  });

  it('widening an In list is not drift; narrowing it past the node is', () => {
    const p = pool({ capacityTypes: ['on-demand'] });
    const n = node('a', { pool: p, type: 'm5.xlarge' });
    const wider = pool({ capacityTypes: ['on-demand', 'spot'] });
    expect(driftReason(n, wider, nodeClass, undefined)).toBeUndefined();
    const narrower = pool({ capacityTypes: ['spot'] });
    expect(driftReason(n, narrower, nodeClass, undefined)).toMatch(/capacity-type In spot no longer admits/);
    const family = pool();
    family.spec.template.spec.requirements.push({
      key: 'karpenter.k8s.aws/instance-family',
      operator: 'In',
      values: ['c5'],
    });
    expect(driftReason(n, family, nodeClass, undefined)).toMatch(/instance-family/);
  });

  it('detects template label, taint and EC2NodeClass changes', () => {
    const p = pool();
    const n = node('a', { pool: p });
    const labelled = pool({ labels: { team: 'a' } });
    expect(driftReason(n, labelled, nodeClass, undefined)).toMatch(/template changed/);
    const tainted = pool();
    tainted.spec.template.spec.taints = [{ key: 'gpu', effect: 'NoSchedule' }];
    expect(driftReason(n, tainted, nodeClass, undefined)).toMatch(/template changed/);
    // Selector terms drift dynamically (cloudDrift), not by hash: the same family picked by id hashes the same.
    const byId = {
      ...nodeClass,
      spec: { ...nodeClass.spec, amiFamily: 'AL2023' as const, amiSelectorTerms: [{ id: 'ami-123' }] },
    };
    expect(nodeClassHash(byId)).toBe(nodeClassHash(nodeClass));
    expect(driftReason(n, p, byId, undefined)).toBeUndefined();
    const otherFamily = {
      ...nodeClass,
      spec: { ...nodeClass.spec, amiSelectorTerms: [{ alias: 'bottlerocket@latest' }] },
    };
    expect(driftReason(n, p, otherFamily, undefined)).toMatch(/EC2NodeClass default changed/);
    const userData = { ...nodeClass, spec: { ...nodeClass.spec, userData: 'echo hi' } };
    expect(driftReason(n, p, userData, undefined)).toMatch(/EC2NodeClass/);
  });

  it('detects a kubelet on another minor version and cloud-reported drift', () => {
    const p = pool();
    expect(driftReason(node('a', { pool: p, kubeletVersion: 'v1.30.4-eks-1' }), p, nodeClass, '1.31')).toMatch(
      /kubelet 1.30 differs from the control plane's 1.31/,
    );
    expect(driftReason(node('b', { pool: p, kubeletVersion: 'v1.31.2' }), p, nodeClass, '1.31')).toBeUndefined();
    const c = node('c', { pool: p });
    c.cloudDrift = 'AMI ami-old is no longer selected';
    expect(driftReason(c, p, nodeClass, undefined)).toBe('AMI ami-old is no longer selected');
  });

  it('judges a node label against each requirement operator, and an absent label only against custom keys', () => {
    const req = (operator: NodeSelectorRequirementWithMinValues['operator'], values?: string[], key = 'team') =>
      ({ key, operator, ...(values ? { values } : {}) }) as NodeSelectorRequirementWithMinValues;
    const labels = { team: 'web', cpu: '4' };
    const cases: [NodeSelectorRequirementWithMinValues, boolean][] = [
      [req('In', ['web', 'api']), true],
      [req('In', ['api']), false],
      [req('In'), false],
      [req('NotIn', ['api']), true],
      [req('NotIn', ['web']), false],
      [req('NotIn'), true],
      [req('Exists'), true],
      [req('DoesNotExist'), false],
      [req('Gt', ['3'], 'cpu'), true],
      [req('Gt', ['4'], 'cpu'), false],
      [req('Lt', ['5'], 'cpu'), true],
      [req('Lt', ['4'], 'cpu'), false],
      [req('Gte', ['4'], 'cpu'), true],
      [req('Gte', ['5'], 'cpu'), false],
      [req('Lte', ['4'], 'cpu'), true],
      [req('Lte', ['3'], 'cpu'), false],
      // Absent labels: what excludes a value holds; a well-known label the node lacks is not held against it.
      [req('NotIn', ['x'], 'missing'), true],
      [req('DoesNotExist', undefined, 'missing'), true],
      [req('In', ['x'], 'missing'), false],
      [req('Exists', undefined, 'missing'), false],
      [req('In', ['us-east-1a'], 'topology.kubernetes.io/zone'), true],
    ];
    for (const [r, expected] of cases) {
      expect(labelSatisfies(labels, r), `${r.key} ${r.operator} ${r.values ?? ''}`).toBe(expected);
    }
  });
});
