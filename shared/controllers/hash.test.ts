import { describe, expect, it } from 'vitest';
import { testNodeClass, testNodePool } from '../../testkit/bed';
import { CLAIM_HASH_VERSION, claimHashes, nodePoolTemplateHash, specHash } from '../api/hash';
import {
  nodeClassHash as disruptionClassHash,
  nodePoolTemplateHash as disruptionTemplateHash,
} from '../disruption/drift';

describe('claim hashes', () => {
  it('ignores key order and undefined fields', () => {
    expect(specHash({ a: 1, b: [1, { c: 2, d: undefined }] })).toBe(specHash({ b: [1, { c: 2 }], a: 1 }));
    expect(specHash({ a: 1 })).not.toBe(specHash({ a: 2 }));
  });

  it('records the NodePool template without requirements, exactly as drift detection computes it', () => {
    const pool = testNodePool();
    const widened = testNodePool();
    widened.spec.template.spec.requirements = [
      ...widened.spec.template.spec.requirements,
      { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m5', 'c5'] },
    ];
    expect(nodePoolTemplateHash(widened)).toBe(nodePoolTemplateHash(pool));
    expect(nodePoolTemplateHash(pool)).toBe(disruptionTemplateHash(pool));
    const tainted = testNodePool();
    tainted.spec.template.spec.taints = [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }];
    expect(nodePoolTemplateHash(tainted)).not.toBe(nodePoolTemplateHash(pool));
  });

  it('gives a new claim exactly the hashes drift detection compares, and none for a missing object', () => {
    const pool = testNodePool();
    const nodeClass = testNodeClass();
    expect(claimHashes(pool, nodeClass)).toEqual({
      nodePoolHash: disruptionTemplateHash(pool),
      nodeClassHash: disruptionClassHash(nodeClass),
      hashVersion: CLAIM_HASH_VERSION,
    });
    expect(claimHashes(undefined, undefined)).toEqual({ hashVersion: CLAIM_HASH_VERSION });
  });
});
