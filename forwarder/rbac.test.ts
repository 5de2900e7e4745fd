import { describe, expect, it } from 'vitest';
import { CONTROLLER_RULES, FORWARDER_RULES, type PolicyRule } from './rbac';

const grants = (rules: PolicyRule[]) =>
  rules.flatMap((r) =>
    r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${g}/${res}:${v}`))),
  );

describe('RBAC rules', () => {
  it('lets the functions patch NodePool, EC2NodeClass and NodeClaim status, and nothing else on those subresources', () => {
    const status = grants(CONTROLLER_RULES).filter((g) => g.includes('/status'));
    expect(status.sort()).toEqual([
      'karpenter.k8s.aws/ec2nodeclasses/status:patch',
      'karpenter.sh/nodeclaims/status:patch',
      'karpenter.sh/nodepools/status:patch',
    ]);
  });

  it('never lets the functions write a NodePool or EC2NodeClass itself; NodeClaims only to mirror them', () => {
    const karpenter = grants(CONTROLLER_RULES).filter((g) => g.startsWith('karpenter.'));
    expect(karpenter.filter((g) => !g.includes('/status:') && !/:(get|list|watch)$/.test(g)).sort()).toEqual([
      'karpenter.sh/nodeclaims:create',
      'karpenter.sh/nodeclaims:delete',
      'karpenter.sh/nodeclaims:patch',
    ]);
  });

  it('keeps the forwarder read-only, without status writes', () => {
    expect(grants(FORWARDER_RULES).every((g) => /:(get|list|watch)$/.test(g))).toBe(true);
    expect(grants(FORWARDER_RULES).some((g) => g.includes('/status'))).toBe(false);
  });
});
