import { describe, expect, it } from 'vitest';
import { controllerRules, FORWARDER_RULES, type PolicyRule } from './rbac';

const grants = (rules: PolicyRule[]) =>
  rules.flatMap((r) =>
    r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${g}/${res}:${v}`))),
  );

describe('RBAC rules', () => {
  it('lets the functions patch NodePool, EC2NodeClass and NodeClaim status, and nothing else on those subresources', () => {
    const status = grants(controllerRules()).filter((g) => g.includes('/status'));
    expect(status.sort()).toEqual([
      'karpenter.k8s.aws/ec2nodeclasses/status:patch',
      'karpenter.sh/nodeclaims/status:patch',
      'karpenter.sh/nodepools/status:patch',
    ]);
  });

  it('never lets the functions write a NodePool or EC2NodeClass itself; NodeClaims only to mirror them', () => {
    const karpenter = grants(controllerRules()).filter((g) => g.startsWith('karpenter.'));
    expect(karpenter.filter((g) => !g.includes('/status:') && !/:(get|list|watch)$/.test(g)).sort()).toEqual([
      'karpenter.sh/nodeclaims:create',
      'karpenter.sh/nodeclaims:delete',
      'karpenter.sh/nodeclaims:patch',
    ]);
  });

  it('grants pods/binding only when binding is opted in', () => {
    expect(grants(controllerRules()).filter((g) => g.includes('binding'))).toEqual([]);
    expect(grants(controllerRules({ bindPods: true })).filter((g) => g.includes('binding'))).toEqual([
      '/pods/binding:create',
    ]);
  });

  it('lets the functions list but never watch, and get nothing but a node', () => {
    const all = grants(controllerRules({ bindPods: true }));
    expect(all.filter((g) => g.endsWith(':watch'))).toEqual([]);
    expect(all.filter((g) => g.endsWith(':get'))).toEqual(['/nodes:get']);
  });

  it('grants the storage.k8s.io group only list, on storage classes and CSINodes', () => {
    const storage = grants(controllerRules({ bindPods: true })).filter((g) => g.startsWith('storage.k8s.io'));
    expect(storage).toEqual(['storage.k8s.io/storageclasses:list', 'storage.k8s.io/csinodes:list']);
  });

  it('keeps the forwarder to list and watch, without status writes', () => {
    expect(grants(FORWARDER_RULES).every((g) => /:(list|watch)$/.test(g))).toBe(true);
    expect(grants(FORWARDER_RULES).some((g) => g.includes('/status'))).toBe(false);
  });

  it('lets the forwarder watch NodeClaims and NodeOverlays, and write or get neither', () => {
    const karpenter = grants(FORWARDER_RULES).filter((g) => /^karpenter\.sh\/(nodeclaims|nodeoverlays)/.test(g));
    expect(karpenter.sort()).toEqual([
      'karpenter.sh/nodeclaims:list',
      'karpenter.sh/nodeclaims:watch',
      'karpenter.sh/nodeoverlays:list',
      'karpenter.sh/nodeoverlays:watch',
    ]);
  });
});
