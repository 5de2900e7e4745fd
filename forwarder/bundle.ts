// The forwarder as one JavaScript file, for the ConfigMap the default manifest ships it in (docs/architecture.md,
// "Changes from the starting design"): forwarder/main.ts and everything it imports, the AWS SDK's SQS client
// included, bundled by esbuild as forwarder/build.mjs bundles it for the image, with licences kept at the end.
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('./main.ts', import.meta.url));

export async function bundleForwarder(): Promise<string> {
  // esbuild is what the CDK bundles the Lambda functions with; loaded only when a manifest is printed.
  const { build } = await import('esbuild');
  const out = await build({
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    minify: true,
    legalComments: 'eof',
    logLevel: 'silent',
    // Some AWS SDK dependencies still call require(); give the ESM bundle one.
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
  const file = out.outputFiles[0];
  if (!file) throw new Error('esbuild produced no forwarder bundle');
  return file.text;
}
