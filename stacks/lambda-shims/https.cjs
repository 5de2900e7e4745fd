// Node's https module handed over as CommonJS, for the reason http.cjs gives (docs/performance.md, "Lambda bundles").
module.exports = process.getBuiltinModule('node:https');
