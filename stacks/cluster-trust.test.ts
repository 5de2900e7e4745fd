// The stack's trust boundaries (docs/architecture.md, "Trust boundaries"): EventBridge reaches the interruption queue
// only from this cluster's rules in every encryption variant; only named roles may write the cluster and termination
// queues; the cluster queue's consumer knows which roles may send its commands; scheduled work that fails is kept.
import { describe, expect, it } from 'vitest';
import type { Statement } from './testing/iam';
import { synthCluster } from './testing/synth';

type Resources = Record<string, { Properties: Record<string, unknown> }>;
type PolicyStatement = Statement & { Principal?: unknown };
const statementsOf = (r: { Properties: Record<string, unknown> }, key: string) =>
  (r.Properties[key] as { Statement: PolicyStatement[] }).Statement;

describe.each(['sqs-managed', 'kms'] as const)('trust boundaries with %s queues', (queueEncryption) => {
  const { stack, template } = synthCluster({ queueEncryption });
  const id = (c: { node: { defaultChild?: unknown } }) => stack.getLogicalId(c.node.defaultChild as never);
  const queuePolicies = Object.values(template.findResources('AWS::SQS::QueuePolicy') as Resources);
  const policyOf = (queue: { node: { defaultChild?: unknown } }) =>
    queuePolicies
      .filter((p) => (p.Properties.Queues as { Ref: string }[]).some((q) => q.Ref === id(queue)))
      .flatMap((p) => statementsOf(p, 'PolicyDocument'));

  it('lets a service principal into a queue or key only with aws:SourceArn and aws:SourceAccount', () => {
    const keyStatements = Object.values(template.findResources('AWS::KMS::Key') as Resources).flatMap((k) =>
      statementsOf(k, 'KeyPolicy'),
    );
    const serviceAllows = [...queuePolicies.flatMap((p) => statementsOf(p, 'PolicyDocument')), ...keyStatements].filter(
      (s) => s.Effect === 'Allow' && JSON.stringify(s.Principal ?? {}).includes('Service'),
    );
    // EventBridge into the interruption queue (and its key with KMS queues); CloudWatch into the alarm topic's key.
    expect(serviceAllows.length).toBe(queueEncryption === 'kms' ? 3 : 2);
    for (const s of serviceAllows) {
      const condition = JSON.stringify(s.Condition);
      expect(condition).toContain('"aws:SourceArn"');
      expect(s.Condition).toMatchObject({ StringEquals: { 'aws:SourceAccount': '111122223333' } });
      if (JSON.stringify(s.Principal).includes('events.amazonaws.com')) {
        for (const rule of [
          'spotInterruption',
          'capacityReservationInterruption',
          'rebalanceRecommendation',
          'stateChange',
          'scheduledChange',
        ]) {
          expect(condition).toContain(`:rule/karpless-demo-${rule}`);
        }
      }
    }
  });

  it('denies SendMessage on the cluster queue to all but the forwarder, the schedule and the functions', () => {
    const deny = policyOf(stack.queues.events).find((s) => s.Sid === 'OnlyForwarderScheduleAndFunctions');
    expect(deny).toMatchObject({ Effect: 'Deny', Action: 'sqs:SendMessage', Principal: { AWS: '*' } });
    const allowed = JSON.stringify(deny?.Condition);
    expect(allowed).toContain(id(stack.forwarder.role));
    expect(
      (deny?.Condition as { ArnNotEquals?: { 'aws:PrincipalArn': unknown[] } } | undefined)?.ArnNotEquals?.[
        'aws:PrincipalArn'
      ],
    ).toHaveLength(6);
  });

  it('denies SendMessage on the termination queue to all but the functions: never the forwarder', () => {
    const deny = policyOf(stack.queues.termination).find((s) => s.Sid === 'OnlyFunctions');
    expect(deny).toMatchObject({ Effect: 'Deny', Action: 'sqs:SendMessage', Principal: { AWS: '*' } });
    expect(JSON.stringify(deny?.Condition)).not.toContain(id(stack.forwarder.role));
    expect(
      (deny?.Condition as { ArnNotEquals?: { 'aws:PrincipalArn': unknown[] } } | undefined)?.ArnNotEquals?.[
        'aws:PrincipalArn'
      ],
    ).toHaveLength(4);
  });

  it("tells the cluster queue's consumer which roles may send Sweep and DisruptionDue", () => {
    const fn = Object.values(template.findResources('AWS::Lambda::Function') as Resources).find(
      (f) => f.Properties.FunctionName === 'karpless-demo-provisioner',
    );
    const trusted = JSON.stringify(
      (fn?.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables?.TRUSTED_SENDERS,
    );
    expect(trusted).toContain('RoleId');
    expect(trusted).toContain('Sweep');
    expect(trusted).toContain('DisruptionDue');
  });

  it('keeps failed GC runs and undelivered ticks in a queue that alarms', () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      MaximumRetryAttempts: 0,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [id(stack.queues.scheduledFailures), 'Arn'] } } },
    });
    for (const s of Object.values(template.findResources('AWS::Scheduler::Schedule') as Resources)) {
      expect((s.Properties.Target as { DeadLetterConfig?: unknown }).DeadLetterConfig).toEqual({
        Arn: { 'Fn::GetAtt': [id(stack.queues.scheduledFailures), 'Arn'] },
      });
    }
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm') as Resources);
    expect(
      alarms.some((a) => JSON.stringify(a.Properties.Dimensions).includes(id(stack.queues.scheduledFailures))),
    ).toBe(true);
  });
});
