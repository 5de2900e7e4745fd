import { describe, expect, it } from 'vitest';
import { bufferIO } from '../cli/io';
import { main } from './main';

describe('npm run bench', () => {
  it('offers the options the benchmark always had', async () => {
    const io = bufferIO();
    expect(await main(['--help'], io)).toBe(0);
    const help = io.stdout.join('');
    expect(help).toContain('Usage: npm run bench --');
    for (const option of ['--json', '--workload <names...>', '--catalog <file>', '--timeout <seconds>']) {
      expect(help).toContain(option);
    }
  });

  it('rejects an unknown workload with a usage error that lists the known ones', async () => {
    const io = bufferIO();
    expect(await main(['--workload', 'no-such-row'], io)).toBe(2);
    expect(io.stderr.join('')).toMatch(/unknown workload\(s\): no-such-row; known: karpenter-1k/);
  });

  it('rejects an option it does not know', async () => {
    const io = bufferIO();
    expect(await main(['--no-such-option'], io)).toBe(2);
  });
});
