import { describe, expect, it } from 'vitest';
import { bufferIO } from './io';
import { main } from './main';

describe('karpless CLI', () => {
  it('prints help and exits 0', async () => {
    const io = bufferIO();
    expect(await main(['--help'], io)).toBe(0);
    expect(io.stdout.join('')).toContain('Usage: karpless');
  });

  it('exits 2 on an unknown command', async () => {
    const io = bufferIO();
    expect(await main(['no-such-command'], io)).toBe(2);
    expect(io.stderr.join('')).toMatch(/error: (unknown command|too many arguments)/);
  });
});
