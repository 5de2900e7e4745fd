// The ValidatingAdmissionPolicy that keeps the Lambda functions' identity to the nodes Karpless manages. RBAC grants
// patch and delete on every node (it cannot select objects by label), so the API server also runs this policy on
// each UPDATE (a patch is an UPDATE at admission) and DELETE of a Node by the functions' group: the node must carry
// `karpenter.sh/nodepool` before the change and still carry it after, so the identity can neither touch another
// node nor add or remove the label to get at one. Evictions cannot be narrowed the same way: an Eviction names only
// the pod, and a policy cannot read the pod to find its node (docs/kubernetes.md, "Admission policy").
// RBAC grants the NodeClaim mirror create, patch and delete on every NodeClaim too, Karpenter's own among them, so a
// second policy keeps those writes to the NodeClaims Karpless manages (`app.kubernetes.io/managed-by=karpless`) the
// same way (docs/kubernetes.md, "Admission policy").
// admissionregistration.k8s.io/v1 is served from Kubernetes 1.30.
import { LabelNodePool } from '../shared/api/labels';
import { MANAGED_BY_KARPLESS, MANAGED_BY_LABEL } from '../shared/api/nodeclaim-object';

export const ADMISSION_POLICY_NAME = 'karpless-managed-nodes-only';
export const NODECLAIM_ADMISSION_POLICY_NAME = 'karpless-managed-nodeclaims-only';

export interface Validation {
  expression: string;
  message: string;
  reason: 'Forbidden';
}

/** A CEL string literal: JSON's escaping is valid CEL for the characters a group name may hold. */
const celString = (s: string): string => JSON.stringify(s);

/** Applies the policy only to requests from the functions' group (their EKS access entries map to it). */
export const identityCondition = (group: string): string => `${celString(group)} in request.userInfo.groups`;

const LABEL = celString(LabelNodePool);

export const NODE_VALIDATIONS: Validation[] = [
  {
    expression: `has(oldObject.metadata.labels) && ${LABEL} in oldObject.metadata.labels`,
    message: `Karpless may change or delete only the nodes it manages (labelled ${LabelNodePool})`,
    reason: 'Forbidden',
  },
  {
    // A DELETE has no new object; an UPDATE must keep the label, so it cannot be removed to escape the policy.
    expression: `request.operation == "DELETE" || (has(object.metadata.labels) && ${LABEL} in object.metadata.labels)`,
    message: `Karpless may not remove the ${LabelNodePool} label from a node`,
    reason: 'Forbidden',
  },
];

const MANAGED_BY = celString(MANAGED_BY_LABEL);
const KARPLESS = celString(MANAGED_BY_KARPLESS);
const managedBy = (o: 'object' | 'oldObject') =>
  `has(${o}.metadata.labels) && ${MANAGED_BY} in ${o}.metadata.labels && ${o}.metadata.labels[${MANAGED_BY}] == ${KARPLESS}`;

export const NODECLAIM_VALIDATIONS: Validation[] = [
  {
    // A CREATE has no old object: what it creates is checked by the next rule.
    expression: `request.operation == "CREATE" || (${managedBy('oldObject')})`,
    message: `Karpless may change or delete only the NodeClaims it manages (labelled ${MANAGED_BY_LABEL}=${MANAGED_BY_KARPLESS}); Karpenter's are not its own`,
    reason: 'Forbidden',
  },
  {
    // A DELETE has no new object; a CREATE or an UPDATE must carry the label, so no NodeClaim is taken over by adding
    // it, and none of Karpless's is set free by removing it.
    expression: `request.operation == "DELETE" || (${managedBy('object')})`,
    message: `Karpless may create or keep only NodeClaims labelled ${MANAGED_BY_LABEL}=${MANAGED_BY_KARPLESS}`,
    reason: 'Forbidden',
  },
];

type Manifest = Record<string, unknown> & { kind: string };
type ResourceRule = { apiGroups: string[]; apiVersions: string[]; operations: string[]; resources: string[] };

/** A fail-closed policy on the functions' group, and its binding that denies what it refuses. */
function guard(
  name: string,
  group: string,
  labels: Record<string, string>,
  resourceRules: ResourceRule[],
  validations: Validation[],
): Manifest[] {
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name, labels },
      spec: {
        // Fail closed: if the expressions cannot be evaluated the request is refused.
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules },
        matchConditions: [{ name: 'karpless-functions', expression: identityCondition(group) }],
        validations,
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name, labels },
      spec: { policyName: name, validationActions: ['Deny'] },
    },
  ];
}

export function admissionPolicy(group: string, labels: Record<string, string>): Manifest[] {
  return [
    ...guard(
      ADMISSION_POLICY_NAME,
      group,
      labels,
      [{ apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE', 'DELETE'], resources: ['nodes'] }],
      NODE_VALIDATIONS,
    ),
    // Status patches carry the whole object, so the label is checked on them too; every served version is matched.
    ...guard(
      NODECLAIM_ADMISSION_POLICY_NAME,
      group,
      labels,
      [
        {
          apiGroups: ['karpenter.sh'],
          apiVersions: ['*'],
          operations: ['CREATE', 'UPDATE', 'DELETE'],
          resources: ['nodeclaims', 'nodeclaims/status'],
        },
      ],
      NODECLAIM_VALIDATIONS,
    ),
  ];
}
