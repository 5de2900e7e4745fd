import { Readable } from 'node:stream';
import { ReadableStream as RealReadableStream } from 'node:stream/web';
import { describe, expect, it } from 'vitest';
import childProcess, { spawn } from './child-process';
import { ReadableStream } from './stream-web';

describe('the node:stream/web stand-in', () => {
  it('is the real ReadableStream to instanceof, new and from', async () => {
    const real = new RealReadableStream({ start: (c) => c.close() });
    expect(real instanceof ReadableStream).toBe(true);
    expect({} instanceof ReadableStream).toBe(false);
    expect(Readable.from(['x']) instanceof ReadableStream).toBe(false);
    const built = new ReadableStream({
      start: (c) => {
        c.enqueue('a');
        c.close();
      },
    });
    expect(built).toBeInstanceOf(RealReadableStream);
    const chunks: unknown[] = [];
    for await (const chunk of ReadableStream.from(['b', 'c'])) chunks.push(chunk);
    expect(chunks).toEqual(['b', 'c']);
    expect(ReadableStream.from(['d'])).toBeInstanceOf(RealReadableStream);
  });
});

describe('the child_process stand-in for client-node', () => {
  it('refuses to run a command, naming what the bundle leaves out', () => {
    expect(() => spawn()).toThrow(/child_process\) is not supported in the Karpless Lambda bundle/);
    expect(() => childProcess.execSync()).toThrow(/not supported in the Karpless Lambda bundle/);
    expect(() => childProcess.spawnSync()).toThrow(/not supported in the Karpless Lambda bundle/);
  });
});

describe('the http and https stand-ins', () => {
  it("are Node's own modules, handed over as CommonJS", async () => {
    const { createRequire } = await import('node:module');
    const require = createRequire(import.meta.url);
    expect(require('./http.cjs')).toBe(require('node:http'));
    expect(require('./https.cjs')).toBe(require('node:https'));
  });
});
