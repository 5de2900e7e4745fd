// The OpenAPI v3 subset Kubernetes accepts in CRD structural schemas, and small builders for it.

export interface ValidationRule {
  rule: string;
  message: string;
}

export interface Schema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema;
  enum?: (string | number)[];
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  maxProperties?: number;
  default?: unknown;
  anyOf?: Schema[];
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-validations'?: ValidationRule[];
}

/** Every field of T must have a schema: adding a field to our types without a schema fails the type check. */
export type PropsOf<T> = { [K in keyof Required<T>]: Schema };

export const str = (description: string, extra: Partial<Schema> = {}): Schema => ({
  type: 'string',
  description,
  ...extra,
});
export const int = (description: string, extra: Partial<Schema> = {}): Schema => ({
  type: 'integer',
  description,
  ...extra,
});
export const bool = (description: string): Schema => ({ type: 'boolean', description });
export const obj = (description: string, properties: Record<string, Schema>, extra: Partial<Schema> = {}): Schema => ({
  type: 'object',
  description,
  properties,
  ...extra,
});
export const arr = (description: string, items: Schema, extra: Partial<Schema> = {}): Schema => ({
  type: 'array',
  description,
  items,
  ...extra,
});
export const stringMap = (description: string, extra: Partial<Schema> = {}): Schema => ({
  type: 'object',
  description,
  additionalProperties: { type: 'string' },
  ...extra,
});

/** A Kubernetes quantity: an integer or a string such as 500m or 1Gi. */
export const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';
export const quantity = (): Schema => ({
  // Structural schemas allow only bare types inside anyOf; the pattern sits beside it and applies to strings.
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  pattern: QUANTITY_PATTERN,
  'x-kubernetes-int-or-string': true,
});

export const LABEL_KEY_PATTERN =
  '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$';
export const LABEL_VALUE_PATTERN = '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$';
export const DURATION_OR_NEVER_PATTERN = '^(([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+|Never)$';
export const DURATION_PATTERN = '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$';

export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; annotations?: Record<string, string> };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      categories?: string[];
      shortNames?: string[];
    };
    scope: 'Cluster' | 'Namespaced';
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      schema: { openAPIV3Schema: Schema };
      subresources?: {
        status: Record<string, never>;
        scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
      };
      additionalPrinterColumns?: { name: string; type: string; jsonPath: string; priority?: number }[];
    }[];
  };
}

/** The top level every custom resource shares; `status` is kept open for the controllers that write it. */
export function resourceSchema(
  description: string,
  spec: Schema,
  status: Schema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
): Schema {
  return {
    type: 'object',
    description,
    required: ['spec'],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec,
      status,
    },
  };
}

type CrdVersion = CustomResourceDefinition['spec']['versions'][number];
type PrinterColumn = NonNullable<CrdVersion['additionalPrinterColumns']>[number];

/** The Ready condition's column, as every Karpenter CRD prints it. */
export const READY_COLUMN: PrinterColumn = {
  name: 'Ready',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].status',
};
export const AGE_COLUMN: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

/** A cluster-scoped CRD in the `karpenter` category with one served and stored version (a status subresource unless
 * `subresources` says more); its object name, list kind and singular follow from the group, kind and plural. */
export function karpenterCRD(o: {
  group: string;
  kind: string;
  plural: string;
  shortNames?: string[];
  version: string;
  subresources?: CrdVersion['subresources'];
  columns: PrinterColumn[];
  schema: Schema;
}): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${o.plural}.${o.group}` },
    spec: {
      group: o.group,
      names: {
        kind: o.kind,
        listKind: `${o.kind}List`,
        plural: o.plural,
        singular: o.kind.toLowerCase(),
        categories: ['karpenter'],
        ...(o.shortNames ? { shortNames: o.shortNames } : {}),
      },
      scope: 'Cluster',
      versions: [
        {
          name: o.version,
          served: true,
          storage: true,
          subresources: o.subresources ?? { status: {} },
          additionalPrinterColumns: o.columns,
          schema: { openAPIV3Schema: o.schema },
        },
      ],
    },
  };
}
