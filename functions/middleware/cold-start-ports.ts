// Builds the handler's ports (SDK clients, Kubernetes client, store) once per container and hands them to every
// invocation through `context.ports`. A failed build is not cached, so a transient error at cold start (a
// throttled STS call, say) is retried by the next invocation rather than poisoning the container.
import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';

export type WithPorts<P> = Context & { ports: P };

export function memoizeAsync<P>(factory: () => Promise<P> | P): () => Promise<P> {
  let pending: Promise<P> | undefined;
  return () => {
    if (!pending) {
      pending = Promise.resolve()
        .then(factory)
        .catch((error: unknown) => {
          pending = undefined;
          throw error;
        });
    }
    return pending;
  };
}

export function coldStartPorts<P>(
  factory: (context: Context) => Promise<P> | P,
): MiddlewareObj<unknown, unknown, Error, Context> {
  let context: Context | undefined;
  const get = memoizeAsync(() => factory(context as Context));
  return {
    name: 'coldStartPorts',
    before: async (request) => {
      context = request.context;
      // Middy types the context per middleware; the handler reads it back as WithPorts<P>.
      (request.context as WithPorts<P>).ports = await get();
    },
  };
}
