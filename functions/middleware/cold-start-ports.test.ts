import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { coldStartPorts, memoizeAsync, type WithPorts } from './cold-start-ports';
import { fakeContext } from './fake-context';

describe('coldStartPorts', () => {
  it('builds the ports once per container and hands the same ones to every invocation', async () => {
    let built = 0;
    const seen: unknown[] = [];
    const handler = middy(async (_event: unknown, context: Context) => {
      const { ports } = context as WithPorts<{ id: number }>;
      seen.push(ports);
      return ports.id;
    }).use(
      coldStartPorts(async (context: Context) => {
        built++;
        return { id: built, fn: context.functionName };
      }),
    );
    expect(await handler({}, fakeContext())).toBe(1);
    expect(await handler({}, fakeContext())).toBe(1);
    expect(built).toBe(1);
    expect(seen[0]).toBe(seen[1]);
    expect(seen[0]).toMatchObject({ fn: 'karpless-demo-provisioner' });
  });

  it('does not cache a failed build: the next invocation retries', async () => {
    let attempts = 0;
    const get = memoizeAsync(async () => {
      attempts++;
      if (attempts === 1) throw new Error('throttled');
      return 'ports';
    });
    await expect(get()).rejects.toThrow('throttled');
    await expect(get()).resolves.toBe('ports');
    await expect(get()).resolves.toBe('ports');
    expect(attempts).toBe(2);
  });

  it('shares one build between concurrent first calls', async () => {
    let attempts = 0;
    const get = memoizeAsync(async () => {
      attempts++;
      await new Promise((r) => setTimeout(r, 5));
      return attempts;
    });
    expect(await Promise.all([get(), get(), get()])).toEqual([1, 1, 1]);
  });
});
