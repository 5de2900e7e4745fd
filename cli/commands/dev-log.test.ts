import { describe, expect, it } from 'vitest';
import { formatLog } from './dev-log';

describe('formatLog', () => {
  it('prints the logged fields after the message and leaves out the Lambda context', () => {
    const line = formatLog({
      level: 'ERROR',
      message: 'launch failed',
      service: 'provisioner',
      timestamp: '2026-11-21T21:00:00.000Z',
      cluster: 'demo',
      cold_start: true,
      function_name: 'karpless-demo-provisioner',
      nodeClaim: 'general-abc12',
      reason: 'unauthorized',
      detail: 'not authorized to perform ec2:CreateFleet',
      pods: ['web-0'],
    });
    expect(line).toBe(
      '    ERROR [provisioner] launch failed nodeClaim=general-abc12 reason=unauthorized detail=not authorized to perform ec2:CreateFleet pods=["web-0"]',
    );
  });
});
