// Node's http module handed over as CommonJS, not through an ES import. On Node 22 (the Lambda runtime), an ES import
// of node:http builds its namespace from every export, which reads the lazy `WebSocket` getter: that loads Node's
// bundled undici and compiles its WebAssembly HTTP parser at every cold start, about 50 ms
// (docs/performance.md, "Lambda bundles"). process.getBuiltinModule, unlike require('http'), is not aliased back here.
module.exports = process.getBuiltinModule('node:http');
