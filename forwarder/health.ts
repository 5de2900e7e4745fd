// /healthz: the process is alive and its loops are turning. /readyz: every watch has listed once and is currently
// connected, and SQS is accepting messages. Kubelet restarts on the first, and the Deployment rollout waits on
// the second.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HealthState {
  live(): boolean;
  ready(): { ready: boolean; detail: Record<string, unknown> };
}

export async function startHealthServer(
  port: number,
  state: HealthState,
  host = '0.0.0.0',
): Promise<Server & { port: number }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      const ok = state.live();
      res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(ok ? 'ok' : 'stalled');
      return;
    }
    if (path === '/readyz') {
      const { ready, detail } = state.ready();
      res
        .writeHead(ready ? 200 : 503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ ready, ...detail }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return Object.assign(server, { port: (server.address() as AddressInfo).port });
}
