// The admission policy's decisions, made the way kube-apiserver makes them: the request must match the policy's
// resource rules and every match condition, then each validation must evaluate to true; false or an evaluation error
// denies (failurePolicy Fail). The CEL is the policy's own, evaluated by @bufbuild/cel, a full CEL implementation.
import { type CelInput, isCelError, run } from '@bufbuild/cel';
import { describe, expect, it } from 'vitest';
import { CONTROLLER_GROUP, controllerRbac } from './manifests';

type Policy = {
  kind: string;
  spec: {
    failurePolicy: string;
    matchConstraints: {
      resourceRules: { apiGroups: string[]; apiVersions: string[]; operations: string[]; resources: string[] }[];
    };
    matchConditions: { name: string; expression: string }[];
    validations: { expression: string; message: string }[];
    policyName?: string;
    validationActions?: string[];
  };
};

const manifests = controllerRbac() as unknown as Policy[];
const named = (kind: string, name: string) =>
  manifests.find((m) => m.kind === kind && (m as { metadata?: { name?: string } }).metadata?.name === name) as Policy;
const policy = named('ValidatingAdmissionPolicy', 'karpless-managed-nodes-only');
const binding = named('ValidatingAdmissionPolicyBinding', 'karpless-managed-nodes-only');
const claimPolicy = named('ValidatingAdmissionPolicy', 'karpless-managed-nodeclaims-only');
const claimBinding = named('ValidatingAdmissionPolicyBinding', 'karpless-managed-nodeclaims-only');

interface Request {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  resource?: string;
  groups: string[];
  oldObject: CelInput;
  object: CelInput;
}

/** A CEL expression's value; an evaluation error (a missing key, a type mismatch) is thrown. */
function evalCel(expression: string, vars: Record<string, CelInput>): unknown {
  const result = run(expression, vars);
  if (isCelError(result)) throw result;
  return result;
}

/** kube-apiserver's decision for a request under a policy: a Node request under the node policy by default. */
function admit(req: Request, under: Policy = policy, apiGroup = ''): 'not-matched' | 'allowed' | { denied: string } {
  const resource = req.resource ?? 'nodes';
  const matches = under.spec.matchConstraints.resourceRules.some(
    (r) => r.resources.includes(resource) && r.operations.includes(req.operation) && r.apiGroups.includes(apiGroup),
  );
  if (!matches) return 'not-matched';
  const vars: Record<string, CelInput> = {
    request: {
      operation: req.operation,
      userInfo: { username: 'arn:aws:sts::1:assumed-role/x/y', groups: req.groups },
    },
    object: req.object,
    oldObject: req.oldObject,
  };
  for (const c of under.spec.matchConditions) if (evalCel(c.expression, vars) !== true) return 'not-matched';
  for (const v of under.spec.validations) {
    let ok: unknown;
    try {
      ok = evalCel(v.expression, vars);
    } catch {
      ok = false;
    }
    if (ok !== true) return { denied: v.message };
  }
  return 'allowed';
}

const node = (labels?: Record<string, string>, unschedulable = false): CelInput => ({
  metadata: { name: 'ip-10-0-0-1.ec2.internal', ...(labels ? { labels } : {}) },
  spec: { unschedulable },
});
const managed = { 'karpenter.sh/nodepool': 'default', 'kubernetes.io/os': 'linux' };
const unmanaged = { 'eks.amazonaws.com/nodegroup': 'system', 'kubernetes.io/os': 'linux' };
const KARPLESS = ['system:authenticated', CONTROLLER_GROUP];

describe('the ValidatingAdmissionPolicy on the functions’ node writes', () => {
  it('is shipped fail-closed, on UPDATE and DELETE of core/v1 nodes, bound with Deny', () => {
    expect(policy.spec.failurePolicy).toBe('Fail');
    expect(policy.spec.matchConstraints.resourceRules).toEqual([
      { apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE', 'DELETE'], resources: ['nodes'] },
    ]);
    expect(binding.spec).toEqual({ policyName: 'karpless-managed-nodes-only', validationActions: ['Deny'] });
  });

  it('lets Karpless patch (cordon, taint, label) and delete a node labelled karpenter.sh/nodepool', () => {
    expect(
      admit({ operation: 'UPDATE', groups: KARPLESS, oldObject: node(managed), object: node(managed, true) }),
    ).toBe('allowed');
    expect(
      admit({ operation: 'UPDATE', groups: KARPLESS, oldObject: node(managed), object: node({ ...managed, a: 'b' }) }),
    ).toBe('allowed');
    expect(admit({ operation: 'DELETE', groups: KARPLESS, oldObject: node(managed), object: null })).toBe('allowed');
  });

  it('refuses Karpless any change to, or the deletion of, a node it does not manage', () => {
    const denied = { denied: expect.stringMatching(/only the nodes it manages/) };
    expect(
      admit({ operation: 'UPDATE', groups: KARPLESS, oldObject: node(unmanaged), object: node(unmanaged, true) }),
    ).toEqual(denied);
    expect(admit({ operation: 'DELETE', groups: KARPLESS, oldObject: node(unmanaged), object: null })).toEqual(denied);
    // A node with no labels at all is refused too, not an evaluation error.
    expect(admit({ operation: 'DELETE', groups: KARPLESS, oldObject: node(), object: null })).toEqual(denied);
  });

  it('refuses adding the label to a node to get at it, and removing it to set a node free', () => {
    expect(
      admit({
        operation: 'UPDATE',
        groups: KARPLESS,
        oldObject: node(unmanaged),
        object: node({ ...unmanaged, ...managed }),
      }),
    ).toEqual({ denied: expect.stringMatching(/only the nodes it manages/) });
    const { 'karpenter.sh/nodepool': _removed, ...rest } = managed;
    expect(admit({ operation: 'UPDATE', groups: KARPLESS, oldObject: node(managed), object: node(rest) })).toEqual({
      denied: expect.stringMatching(/may not remove the karpenter.sh\/nodepool label/),
    });
  });

  it('leaves every other identity, and node creation by the kubelet, to RBAC alone', () => {
    const admin = ['system:masters', 'system:authenticated'];
    expect(admit({ operation: 'DELETE', groups: admin, oldObject: node(unmanaged), object: null })).toBe('not-matched');
    expect(admit({ operation: 'CREATE', groups: ['system:nodes'], oldObject: null, object: node(managed) })).toBe(
      'not-matched',
    );
    // Evictions are not matched: an Eviction names only its pod (docs/kubernetes.md, "Admission policy").
    expect(
      admit({ operation: 'CREATE', resource: 'pods/eviction', groups: KARPLESS, oldObject: null, object: {} }),
    ).toBe('not-matched');
  });
});

const claim = (labels?: Record<string, string>): CelInput => ({
  metadata: { name: 'default-x7k2m', ...(labels ? { labels } : {}), finalizers: ['karpenter.sh/termination'] },
  spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } },
});
const ours = { 'app.kubernetes.io/managed-by': 'karpless', 'karpenter.sh/nodepool': 'default' };
const karpenters = { 'karpenter.sh/nodepool': 'default' };
const onClaims = (req: Omit<Request, 'resource'> & { resource?: string }) =>
  admit({ ...req, resource: req.resource ?? 'nodeclaims' }, claimPolicy, 'karpenter.sh');

describe('the ValidatingAdmissionPolicy on the functions’ NodeClaim writes', () => {
  it('is shipped fail-closed, on every write of karpenter.sh NodeClaims and their status, bound with Deny', () => {
    expect(claimPolicy.spec.failurePolicy).toBe('Fail');
    expect(claimPolicy.spec.matchConstraints.resourceRules).toEqual([
      {
        apiGroups: ['karpenter.sh'],
        apiVersions: ['*'],
        operations: ['CREATE', 'UPDATE', 'DELETE'],
        resources: ['nodeclaims', 'nodeclaims/status'],
      },
    ]);
    expect(claimBinding.spec).toEqual({ policyName: 'karpless-managed-nodeclaims-only', validationActions: ['Deny'] });
  });

  it('lets Karpless create, patch (status, finalizer) and delete the NodeClaims it manages', () => {
    expect(onClaims({ operation: 'CREATE', groups: KARPLESS, oldObject: null, object: claim(ours) })).toBe('allowed');
    expect(onClaims({ operation: 'UPDATE', groups: KARPLESS, oldObject: claim(ours), object: claim(ours) })).toBe(
      'allowed',
    );
    expect(
      onClaims({
        operation: 'UPDATE',
        resource: 'nodeclaims/status',
        groups: KARPLESS,
        oldObject: claim(ours),
        object: claim(ours),
      }),
    ).toBe('allowed');
    expect(onClaims({ operation: 'DELETE', groups: KARPLESS, oldObject: claim(ours), object: null })).toBe('allowed');
  });

  it("refuses Karpless any write to Karpenter's own NodeClaims, or to one with no labels", () => {
    const denied = { denied: expect.stringMatching(/only the NodeClaims it manages/) };
    for (const other of [karpenters, { ...karpenters, 'app.kubernetes.io/managed-by': 'karpenter' }, undefined]) {
      expect(
        onClaims({ operation: 'UPDATE', groups: KARPLESS, oldObject: claim(other), object: claim(other) }),
      ).toEqual(denied);
      expect(
        onClaims({
          operation: 'UPDATE',
          resource: 'nodeclaims/status',
          groups: KARPLESS,
          oldObject: claim(other),
          object: claim(other),
        }),
      ).toEqual(denied);
      expect(onClaims({ operation: 'DELETE', groups: KARPLESS, oldObject: claim(other), object: null })).toEqual(
        denied,
      );
    }
    expect(onClaims({ operation: 'CREATE', groups: KARPLESS, oldObject: null, object: claim(karpenters) })).toEqual({
      denied: expect.stringMatching(/create or keep only NodeClaims labelled/),
    });
  });

  it('refuses taking over a NodeClaim by adding the label, and setting one free by removing it', () => {
    expect(
      onClaims({ operation: 'UPDATE', groups: KARPLESS, oldObject: claim(karpenters), object: claim(ours) }),
    ).toEqual({ denied: expect.stringMatching(/only the NodeClaims it manages/) });
    expect(
      onClaims({ operation: 'UPDATE', groups: KARPLESS, oldObject: claim(ours), object: claim(karpenters) }),
    ).toEqual({ denied: expect.stringMatching(/create or keep only NodeClaims labelled/) });
  });

  it("leaves every other identity, Karpenter's controller among them, to RBAC alone", () => {
    const karpenter = ['system:serviceaccounts:kube-system', 'system:authenticated'];
    expect(onClaims({ operation: 'DELETE', groups: karpenter, oldObject: claim(karpenters), object: null })).toBe(
      'not-matched',
    );
  });
});
