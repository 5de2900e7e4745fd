// @middy/core imports ReadableStream from node:stream/web only to check a streamed response (its streamifyResponse
// option, which no Karpless function sets), but that import loads Node's web streams at every cold start: about 30 M
// instructions, 6 % of the provisioner's import (docs/performance.md, "Lambda bundles"). Node's global ReadableStream
// is the same class and loads on first use, so this stand-in defers to it then: `instanceof`, `new` and `from` behave
// as the real class's. Another export of node:stream/web, if ever imported, fails the build instead of the function.
export class ReadableStream {
  constructor(...args: ConstructorParameters<typeof globalThis.ReadableStream>) {
    // biome-ignore lint/correctness/noConstructorReturn: the stand-in builds the real class's instance.
    return new globalThis.ReadableStream(...args);
  }
  static [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof globalThis.ReadableStream;
  }
  static from(source: Parameters<(typeof globalThis.ReadableStream)['from']>[0]) {
    return globalThis.ReadableStream.from(source);
  }
}
