import { describe, expect, it } from 'vitest';
import { pod as buildPod } from '../../testkit/builders';
import type { Pod } from '../api/kube';
import { conflicts, HostPortUsage, podHostPorts } from './hostports';

const pod = (ports: { hostPort?: number; hostIP?: string; protocol?: 'TCP' | 'UDP' }[]): Pod =>
  buildPod({ name: 'p', containers: [{ name: 'c', ports: ports.map((p) => ({ containerPort: 80, ...p })) }] });

describe('host ports', () => {
  it('collects only ports with a hostPort', () => {
    expect(podHostPorts(pod([{ hostPort: 80 }, {}]))).toEqual([{ ip: '0.0.0.0', protocol: 'TCP', port: 80 }]);
  });

  it('conflicts on the same port and protocol with overlapping addresses', () => {
    const a = { ip: '0.0.0.0', protocol: 'TCP', port: 80 };
    expect(conflicts(a, { ip: '10.0.0.1', protocol: 'TCP', port: 80 })).toBe(true);
    expect(conflicts(a, { ip: '0.0.0.0', protocol: 'UDP', port: 80 })).toBe(false);
    expect(
      conflicts({ ip: '10.0.0.1', protocol: 'TCP', port: 80 }, { ip: '10.0.0.2', protocol: 'TCP', port: 80 }),
    ).toBe(false);
  });

  it('tracks usage per node', () => {
    const u = new HostPortUsage();
    u.add(podHostPorts(pod([{ hostPort: 80 }])));
    expect(u.conflict(podHostPorts(pod([{ hostPort: 80, hostIP: '10.0.0.1' }])))?.port).toBe(80);
    expect(u.conflict(podHostPorts(pod([{ hostPort: 80, protocol: 'UDP' }])))).toBeUndefined();
    expect(new HostPortUsage().conflict(podHostPorts(pod([{ hostPort: 53 }, { hostPort: 53 }])))?.port).toBe(53);
  });
});
