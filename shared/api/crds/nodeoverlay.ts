// The NodeOverlay CRD (karpenter.sh/v1alpha1) as Karpenter ships it: the same fields, bounds, patterns and CEL
// rules, so `kubectl apply` refuses what Karpless's parser refuses (docs/api.md, "NodeOverlay").
import { NODE_SELECTOR_OPERATORS } from '../check-scheduling';
import type { NodeOverlaySpec } from '../nodeoverlay';
import {
  AGE_COLUMN,
  arr,
  type CustomResourceDefinition,
  int,
  karpenterCRD,
  LABEL_KEY_PATTERN,
  obj,
  type PropsOf,
  quantity,
  READY_COLUMN,
  resourceSchema,
  str,
} from './schema';

const requirement = obj(
  'A label requirement an instance type, offering or NodePool must meet.',
  {
    key: str('The label key.', {
      maxLength: 316,
      pattern: LABEL_KEY_PATTERN,
      // Karpenter's rules for an overlay's keys: karpenter.sh is restricted but for its two well-known labels.
      'x-kubernetes-validations': [
        {
          message: 'label domain "karpenter.sh" is restricted',
          rule: 'self in ["karpenter.sh/capacity-type", "karpenter.sh/nodepool"] || !self.find("^([^/]+)").endsWith("karpenter.sh")',
        },
        { message: 'label "kubernetes.io/hostname" is restricted', rule: 'self != "kubernetes.io/hostname"' },
      ],
    }),
    operator: str("The key's relation to the values.", { enum: [...NODE_SELECTOR_OPERATORS] }),
    values: arr('The values.', { type: 'string', maxLength: 63 }, { 'x-kubernetes-list-type': 'atomic' }),
  },
  { required: ['key', 'operator'] },
);

const specProps: PropsOf<NodeOverlaySpec> = {
  requirements: arr('The instance types and offerings this overlay applies to; empty selects all.', requirement, {
    maxItems: 100,
    'x-kubernetes-validations': [
      {
        message: "requirements with operator 'NotIn' must have a value defined",
        rule: "self.all(x, x.operator == 'NotIn' ? has(x.values) && x.values.size() != 0 : true)",
      },
      {
        message: "requirements with operator 'In' must have a value defined",
        rule: "self.all(x, x.operator == 'In' ? has(x.values) && x.values.size() != 0 : true)",
      },
      {
        message: "requirements operator 'Gt', 'Lt', 'Gte' or 'Lte' must have a single positive integer value",
        rule: "self.all(x, (x.operator == 'Gt' || x.operator == 'Lt' || x.operator == 'Gte' || x.operator == 'Lte') ? (has(x.values) && x.values.size() == 1 && int(x.values[0]) >= 0) : true)",
      },
    ],
  }),
  weight: int('Higher weights take precedence; unset counts as 0.', { minimum: 1, maximum: 10000 }),
  price: str('An absolute price for the matching offerings.', { pattern: '^\\d+(\\.\\d+)?$' }),
  priceAdjustment: str("A signed amount or percentage added to the matching offerings' price.", {
    pattern: '^(([+-]{1}(\\d*\\.?\\d+))|(\\+{1}\\d*\\.?\\d+%)|(^(-\\d{1,2}(\\.\\d+)?%)$)|(-100%))$',
  }),
  capacity: {
    type: 'object',
    description: 'Extended resources added to the matching instance types.',
    additionalProperties: quantity(),
    'x-kubernetes-validations': [
      {
        message: 'invalid resource restricted',
        rule: "self.all(x, !(x in ['cpu', 'memory', 'ephemeral-storage', 'pods']))",
      },
    ],
  },
};

export function nodeOverlayCRD(): CustomResourceDefinition {
  return karpenterCRD({
    group: 'karpenter.sh',
    kind: 'NodeOverlay',
    plural: 'nodeoverlays',
    shortNames: ['overlays'],
    version: 'v1alpha1',
    columns: [READY_COLUMN, AGE_COLUMN, { name: 'Weight', type: 'integer', jsonPath: '.spec.weight', priority: 1 }],
    schema: resourceSchema(
      'NodeOverlay changes the price and extended resources of the instance types it selects.',
      obj('NodeOverlaySpec', specProps, {
        'x-kubernetes-validations': [
          {
            message: "cannot set both 'price' and 'priceAdjustment'",
            rule: '!has(self.price) || !has(self.priceAdjustment)',
          },
        ],
      }),
    ),
  });
}
