// The entry stack tests give every NodejsFunction. Tests skip bundling, so this file is never built; it only has to
// exist, because NodejsFunction checks its entry. Real synths use functions/<name>/handler.ts.
export const handler = async (): Promise<void> => {};
