// Reads IAM statements out of a synthesized template, per function, for assertions on least privilege.
import type { Template } from 'aws-cdk-lib/assertions';

export interface Statement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

type Resources = Record<string, { Properties: Record<string, unknown> }>;

export const actionsOf = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);

/** Every statement of every identity policy attached to the role with this logical id. */
export function statementsOfRole(template: Template, roleLogicalId: string): Statement[] {
  const policies = template.findResources('AWS::IAM::Policy') as Resources;
  return Object.values(policies)
    .filter((p) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleLogicalId))
    .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

export function roleOfFunction(template: Template, functionName: string): string {
  const fns = template.findResources('AWS::Lambda::Function', {
    Properties: { FunctionName: functionName },
  }) as Resources;
  const fn = Object.values(fns)[0];
  if (!fn) throw new Error(`no function ${functionName}`);
  return (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
}

export function statementsOfFunction(template: Template, functionName: string): Statement[] {
  return statementsOfRole(template, roleOfFunction(template, functionName));
}

export function allStatements(template: Template): Statement[] {
  const policies = template.findResources('AWS::IAM::Policy') as Resources;
  return Object.values(policies).flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

/** Resolves `Fn::Join` of literals and refs to a readable string, for matching ARNs in tests. */
export function flat(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(flat).join(',');
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    if ('Fn::Join' in obj) {
      const [sep, parts] = obj['Fn::Join'] as [string, unknown[]];
      return parts.map(flat).join(sep);
    }
    if ('Ref' in obj) return `<${String(obj.Ref)}>`;
    if ('Fn::GetAtt' in obj) return `<${(obj['Fn::GetAtt'] as string[]).join('.')}>`;
  }
  return JSON.stringify(value);
}
