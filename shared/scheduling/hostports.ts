// Host ports: two pods on one node conflict when they bind the same port and protocol on overlapping addresses
// (an empty or 0.0.0.0 hostIP means every address).
import type { Container, Pod } from '../api/kube';

export interface HostPort {
  ip: string;
  protocol: string;
  port: number;
}

const ANY = '0.0.0.0';

export function podHostPorts(pod: Pod): HostPort[] {
  const out: HostPort[] = [];
  const scan = (cs: Container[] | undefined, sidecarsOnly: boolean) => {
    for (const c of cs ?? []) {
      if (sidecarsOnly && c.restartPolicy !== 'Always') continue;
      for (const p of c.ports ?? []) {
        if (!p.hostPort) continue;
        out.push({ ip: p.hostIP && p.hostIP !== '' ? p.hostIP : ANY, protocol: p.protocol ?? 'TCP', port: p.hostPort });
      }
    }
  };
  scan(pod.spec.containers, false);
  scan(pod.spec.initContainers, true);
  return out;
}

export function conflicts(a: HostPort, b: HostPort): boolean {
  return a.port === b.port && a.protocol === b.protocol && (a.ip === b.ip || a.ip === ANY || b.ip === ANY);
}

/** The ports a node has handed out; checks are linear, since a node rarely holds more than a handful. */
export class HostPortUsage {
  private readonly used: HostPort[] = [];

  conflict(ports: readonly HostPort[]): HostPort | undefined {
    for (const p of ports) {
      for (const u of this.used) if (conflicts(p, u)) return p;
    }
    // A pod that lists one port twice conflicts with itself.
    for (let i = 0; i < ports.length; i++) {
      for (let j = i + 1; j < ports.length; j++)
        if (conflicts(ports[i] as HostPort, ports[j] as HostPort)) return ports[j];
    }
    return undefined;
  }

  add(ports: readonly HostPort[]): void {
    this.used.push(...ports);
  }

  get size(): number {
    return this.used.length;
  }
}

export function formatHostPort(p: HostPort): string {
  return `${p.ip}:${p.port}/${p.protocol}`;
}
