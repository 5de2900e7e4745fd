// The SDK's default credential chain (env, SSO, ini files, process, web identity, container and instance metadata)
// brings the SSO, STS and sign-in clients with it (~90 KiB minified). Lambda always hands a function its execution
// role's credentials in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), the first
// link of that chain, so the bundle's default provider is that link alone.
import { fromEnv } from '@aws-sdk/credential-provider-env';

type EnvInit = Parameters<typeof fromEnv>[0];

export const defaultProvider = (init?: EnvInit) => fromEnv(init);
