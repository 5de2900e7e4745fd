// The NodePool CRD (karpenter.sh/v1), written from our NodePool types. It accepts what Karpenter's CRD accepts, so
// clusters can use it in place of Karpenter's, with the same defaults the parser fills in.

import { NODE_SELECTOR_OPERATORS, TAINT_EFFECTS } from '../check-scheduling';
import {
  DEFAULT_BUDGET_NODES,
  DEFAULT_CONSOLIDATE_AFTER,
  DEFAULT_CONSOLIDATION_POLICY,
  DEFAULT_EXPIRE_AFTER,
} from '../defaults';
import type { Budget, NodePoolSpec, NodeSelectorRequirementWithMinValues } from '../karpenter';
import type { Taint } from '../kube';
import { BUDGET_DURATION, BUDGET_NODES, CONSOLIDATION_POLICIES, DISRUPTION_REASONS } from '../validate-nodepool';
import { restrictedLabelMapRules, restrictedLabelRules } from './labels-cel';
import {
  AGE_COLUMN,
  arr,
  type CustomResourceDefinition,
  DURATION_OR_NEVER_PATTERN,
  DURATION_PATTERN,
  int,
  karpenterCRD,
  LABEL_KEY_PATTERN,
  LABEL_VALUE_PATTERN,
  obj,
  type PropsOf,
  quantity,
  READY_COLUMN,
  resourceSchema,
  type Schema,
  str,
  stringMap,
} from './schema';

const taintProps: PropsOf<Taint> = {
  key: str('The taint key to be applied to a node.', { minLength: 1, pattern: LABEL_KEY_PATTERN }),
  value: str('The taint value corresponding to the taint key.', { pattern: LABEL_VALUE_PATTERN }),
  effect: str('The effect of the taint on pods that do not tolerate it.', { enum: [...TAINT_EFFECTS] }),
};
const taints = (description: string): Schema =>
  arr(
    description,
    obj(
      'A taint.',
      { ...taintProps, timeAdded: str('When the taint was added.', { format: 'date-time' }) },
      { required: ['key', 'effect'] },
    ),
  );

const requirementProps: PropsOf<NodeSelectorRequirementWithMinValues> = {
  key: str('The label key that the requirement applies to.', {
    maxLength: 316,
    pattern: LABEL_KEY_PATTERN,
    'x-kubernetes-validations': restrictedLabelRules('self'),
  }),
  operator: str("The key's relationship to the values.", { enum: [...NODE_SELECTOR_OPERATORS] }),
  values: arr(
    'Values for In and NotIn (one or more), Gt, Lt, Gte and Lte (exactly one integer).',
    str('A value.', { maxLength: 63, pattern: LABEL_VALUE_PATTERN }),
    {
      maxItems: 500,
      'x-kubernetes-list-type': 'atomic',
    },
  ),
  minValues: int('The minimum number of distinct values the launched capacity must keep open for this key.', {
    minimum: 1,
    maximum: 50,
  }),
};

const budgetProps: PropsOf<Budget> = {
  nodes: str('How many nodes may be disrupted at once: a count ("5") or a percentage ("10%").', {
    pattern: BUDGET_NODES.source,
    default: DEFAULT_BUDGET_NODES,
  }),
  schedule: str('When the budget becomes active: a 5-field cron expression or a macro such as @daily.', {
    pattern: '^(@(annually|yearly|monthly|weekly|daily|midnight|hourly)|\\S+\\s+\\S+\\s+\\S+\\s+\\S+\\s+\\S+)$',
  }),
  duration: str('How long the budget stays active after each schedule hit; whole hours and minutes.', {
    pattern: BUDGET_DURATION.source,
  }),
  reasons: arr(
    'The disruption reasons the budget applies to; all when empty.',
    str('A reason.', { enum: [...DISRUPTION_REASONS] }),
  ),
};

export const templateSpecProps: PropsOf<NodePoolSpec['template']['spec']> = {
  nodeClassRef: obj(
    'The EC2NodeClass the nodes are launched with.',
    {
      // Any provider's group and kind: another provider's pools are left to their owner (node-class-ref.ts).
      group: str('API group of the node class.', { pattern: '^[^/]*$' }),
      kind: str('Kind of the node class.', { minLength: 1 }),
      name: str('Name of the node class.', { minLength: 1 }),
    },
    { required: ['group', 'kind', 'name'] },
  ),
  requirements: arr(
    'Constraints on the nodes launched from this NodePool.',
    obj('A requirement.', requirementProps, { required: ['key', 'operator'] }),
    {
      maxItems: 100,
      'x-kubernetes-validations': [
        {
          message: "requirements with operator 'In' must have a value defined",
          rule: "self.all(x, x.operator == 'In' ? has(x.values) && x.values.size() != 0 : true)",
        },
        {
          message: "requirements operator 'Gt', 'Lt', 'Gte' or 'Lte' must have a single integer value",
          rule: "self.all(x, (x.operator == 'Gt' || x.operator == 'Lt' || x.operator == 'Gte' || x.operator == 'Lte') ? (has(x.values) && x.values.size() == 1 && x.values[0].matches('^-?[0-9]+$')) : true)",
        },
        {
          message: "requirements with 'minValues' must have at least that many values specified in the 'values' field",
          rule: "self.all(x, (x.operator == 'In' && has(x.minValues)) ? x.values.size() >= x.minValues : true)",
        },
      ],
    },
  ),
  taints: taints('Taints applied to every node.'),
  startupTaints: taints('Taints applied at startup that some agent removes; pods need not tolerate them.'),
  expireAfter: str('How long a node lives before it is replaced: a duration, or Never.', {
    pattern: DURATION_OR_NEVER_PATTERN,
    default: DEFAULT_EXPIRE_AFTER,
  }),
  terminationGracePeriod: str('The longest a node may take to drain before its pods are deleted.', {
    pattern: DURATION_PATTERN,
  }),
};

const specProps: PropsOf<NodePoolSpec> = {
  template: obj(
    'The template of the NodeClaims this NodePool launches.',
    {
      metadata: obj('Labels and annotations of the nodes.', {
        labels: stringMap('Labels of every node.', {
          additionalProperties: { type: 'string', maxLength: 63, pattern: LABEL_VALUE_PATTERN },
          maxProperties: 100,
          'x-kubernetes-validations': restrictedLabelMapRules(),
        }),
        annotations: stringMap('Annotations of every node.'),
      }),
      spec: obj('The NodeClaim template spec.', templateSpecProps, { required: ['nodeClassRef', 'requirements'] }),
    },
    { required: ['spec'] },
  ),
  disruption: obj(
    'How nodes of this NodePool may be disrupted.',
    {
      consolidationPolicy: str(
        'Which nodes consolidation may remove; Balanced takes a move only when its score passes.',
        {
          enum: [...CONSOLIDATION_POLICIES],
          default: DEFAULT_CONSOLIDATION_POLICY,
        },
      ),
      consolidateAfter: str('How long a node must be consolidatable before it is consolidated: a duration, or Never.', {
        pattern: DURATION_OR_NEVER_PATTERN,
        default: DEFAULT_CONSOLIDATE_AFTER,
      }),
      budgets: arr(
        'The most restrictive active budget limits disruption.',
        obj('A budget.', budgetProps, { required: ['nodes'] }),
        {
          maxItems: 50,
          default: [{ nodes: DEFAULT_BUDGET_NODES }],
          'x-kubernetes-validations': [
            {
              message: "'schedule' must be set with 'duration'",
              rule: 'self.all(x, has(x.schedule) == has(x.duration))',
            },
          ],
        },
      ),
    },
    { default: { consolidateAfter: DEFAULT_CONSOLIDATE_AFTER } },
  ),
  limits: {
    type: 'object',
    description: 'Upper bounds on the resources of all nodes of this NodePool.',
    additionalProperties: quantity(),
  },
  weight: int('NodePools with higher weight are tried first; unset counts as 0.', { minimum: 1, maximum: 100 }),
  replicas: int('A static NodePool keeps exactly this many nodes, whatever the pods need.', { minimum: 0 }),
};

/** Karpenter's rules for static NodePools, on the spec. */
const STATIC_RULES = [
  {
    rule: 'has(self.replicas) == has(oldSelf.replicas)',
    message: 'Cannot transition NodePool between static (replicas set) and dynamic (replicas unset) provisioning modes',
  },
  {
    rule: "!has(self.replicas) || (!has(self.limits) || size(self.limits) == 0 || (size(self.limits) == 1 && 'nodes' in self.limits))",
    message: "only 'limits.nodes' is supported on static NodePools",
  },
  { rule: '!has(self.replicas) || !has(self.weight)', message: "'weight' is not supported on static NodePools" },
];

export function nodePoolCRD(): CustomResourceDefinition {
  return karpenterCRD({
    group: 'karpenter.sh',
    kind: 'NodePool',
    plural: 'nodepools',
    version: 'v1',
    // Karpenter's scale subresource, so `kubectl scale nodepool NAME --replicas=N` scales a static pool.
    subresources: {
      status: {},
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.nodes' },
    },
    // Karpenter v1's columns, in its order; Nodes and Ready read the status Karpless publishes.
    columns: [
      { name: 'NodeClass', type: 'string', jsonPath: '.spec.template.spec.nodeClassRef.name' },
      { name: 'Nodes', type: 'string', jsonPath: '.status.nodes' },
      READY_COLUMN,
      AGE_COLUMN,
      { name: 'Weight', type: 'integer', jsonPath: '.spec.weight', priority: 1 },
    ],
    schema: resourceSchema(
      'NodePool sets the constraints of the nodes Karpless launches for pending pods.',
      obj('NodePoolSpec', specProps, { required: ['template'], 'x-kubernetes-validations': STATIC_RULES }),
    ),
  });
}
