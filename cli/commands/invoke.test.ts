import { describe, expect, it } from 'vitest';
import { bufferIO } from '../io';
import { main } from '../main';

const run = async (...args: string[]) => {
  const io = bufferIO();
  const code = await main(['invoke', ...args], io);
  return { code, out: io.stdout.join(''), err: io.stderr.join('') };
};

describe('karpless invoke', () => {
  it('runs the provisioner on a fixture against the seeded simulator and prints logs and response', async () => {
    const r = await run('provisioner', 'events/pods-pending.json', '-f', 'examples/cluster/web.yaml');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/# logs \(\d+\)/);
    expect(r.out).toMatch(/"message":"launched"/);
    expect(r.out).toMatch(/# response\n\{\n {2}"batchItemFailures": \[\]\n\}/);
    expect(r.out).toMatch(/cloud creates: [1-9]/);
  });

  it('reports a malformed fixture as a batch item failure with the poison log line', async () => {
    const r = await run('provisioner', 'malformed-wrong-version.json', '-f', 'examples/cluster/web.yaml');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/poison message/);
    expect(r.out).toMatch(/"itemIdentifier"/);
  });

  it('delivers the gc tick as the Scheduler payload', async () => {
    const r = await run('gc', 'gc-tick.json', '-f', 'examples/cluster/web.yaml');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/"message":"gc pass"/);
    expect(r.out).toMatch(/"terminatedInstances": \[\]/);
  });

  it('rejects an unknown function or a missing file as usage errors', async () => {
    expect((await run('nope', 'events/pods-pending.json')).code).toBe(2);
    const missing = await run('provisioner', 'events/no-such.json');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/no-such\.json: no such file/);
  });
});
