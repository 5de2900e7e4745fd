// The ValidatingAdmissionPolicy that keeps the Lambda functions' identity to the nodes Karpless manages. RBAC grants
// patch and delete on every node (it cannot select objects by label), so the API server also runs this policy on
// each UPDATE (a patch is an UPDATE at admission) and DELETE of a Node by the functions' group: the node must carry
// `karpenter.sh/nodepool` before the change and still carry it after, so the identity can neither touch another
// node nor add or remove the label to get at one. Evictions cannot be narrowed the same way: an Eviction names only
// the pod, and a policy cannot read the pod to find its node (docs/kubernetes.md, "Admission policy").
// admissionregistration.k8s.io/v1 is served from Kubernetes 1.30.
import { LabelNodePool } from '../shared/api/labels';

export const ADMISSION_POLICY_NAME = 'karpless-managed-nodes-only';

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

type Manifest = Record<string, unknown> & { kind: string };

export function admissionPolicy(group: string, labels: Record<string, string>): Manifest[] {
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: ADMISSION_POLICY_NAME, labels },
      spec: {
        // Fail closed: if the expressions cannot be evaluated the request is refused.
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            { apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE', 'DELETE'], resources: ['nodes'] },
          ],
        },
        matchConditions: [{ name: 'karpless-functions', expression: identityCondition(group) }],
        validations: NODE_VALIDATIONS,
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: ADMISSION_POLICY_NAME, labels },
      spec: { policyName: ADMISSION_POLICY_NAME, validationActions: ['Deny'] },
    },
  ];
}
