import { describe, expect, it } from 'vitest';
import { nodePool } from '../../testkit/builders';
import type { NodeClaimObject } from '../api/cluster-state';
import type { NodePool } from '../api/karpenter';
import { claimsFromDump } from './dump-claims';

type Owner = NonNullable<NodeClaimObject['metadata']['ownerReferences']>[number];

const claimObject = (owners: Owner[]): NodeClaimObject => ({
  kind: 'NodeClaim',
  metadata: { name: 'default-abcde', labels: { 'karpenter.sh/nodepool': 'default' }, ownerReferences: owners },
  spec: { nodeClassRef: { name: 'default' } },
  status: { providerID: 'aws:///us-west-2a/i-0123456789abcdef0' },
});

const dumpedPool = (uid?: string): NodePool => {
  const pool = nodePool();
  return uid ? { ...pool, metadata: { ...pool.metadata, uid } } : pool;
};

const read = (o: NodeClaimObject, pools: NodePool[]) =>
  claimsFromDump([o], [], pools, 'c', '2026-11-26T00:00:00Z').claims[0];

const owner = (o: Partial<Owner> = {}): Owner => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  name: 'default',
  uid: 'uid-when-launched',
  ...o,
});

describe('claimsFromDump: the owning NodePool', () => {
  it('records the UID of the NodePool a Karpenter NodeClaim names as owner', () => {
    const claim = read(claimObject([owner()]), [dumpedPool('uid-listed-now')]);
    expect(claim?.nodePool).toBe('default');
    // Unlike the listed pool's: the cascade then ends the claim of the pool deleted and re-created since.
    expect(claim?.nodePoolUid).toBe('uid-when-launched');
  });

  it('records no UID from an owner that is another pool, or not a Karpenter NodePool', () => {
    const claim = read(claimObject([owner({ name: 'other' }), owner({ apiVersion: 'v1' })]), [dumpedPool('uid-now')]);
    expect(claim?.nodePoolUid).toBeUndefined();
  });

  it('records no UID when the dump lists the pool without one (hand-written YAML): the claim is adopted by name', () => {
    const claim = read(claimObject([owner()]), [dumpedPool()]);
    expect(claim?.nodePoolUid).toBeUndefined();
  });
});
