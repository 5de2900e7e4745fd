// The forwarder's configuration, from environment variables set by the Deployment (see manifests.ts).
import type { BatchTiming } from './batch-window';

export interface ForwarderConfig {
  cluster: string;
  queueUrl: string;
  region?: string;
  healthPort: number;
  timing: BatchTiming;
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ForwarderConfig {
  const problems: string[] = [];
  const cluster = env.KARPLESS_CLUSTER ?? '';
  const queueUrl = env.KARPLESS_QUEUE_URL ?? '';
  if (!cluster) problems.push('KARPLESS_CLUSTER is required (the EKS cluster name)');
  if (!queueUrl) problems.push('KARPLESS_QUEUE_URL is required (the cluster FIFO queue URL)');
  else if (!queueUrl.endsWith('.fifo')) problems.push(`KARPLESS_QUEUE_URL must be a FIFO queue (.fifo): ${queueUrl}`);
  const num = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0) problems.push(`${name} must be a non-negative number, got "${raw}"`);
    return n;
  };
  const config: ForwarderConfig = {
    cluster,
    queueUrl,
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? regionFromQueueUrl(queueUrl),
    healthPort: num('KARPLESS_HEALTH_PORT', 8080),
    timing: { idleMs: num('KARPLESS_BATCH_IDLE_MS', 1000), maxMs: num('KARPLESS_BATCH_MAX_MS', 10_000) },
    logLevel: (env.KARPLESS_LOG_LEVEL as ForwarderConfig['logLevel']) ?? 'INFO',
  };
  if (problems.length > 0) throw new Error(`forwarder configuration:\n  ${problems.join('\n  ')}`);
  return config;
}

function regionFromQueueUrl(url: string): string | undefined {
  return url.match(/^https:\/\/sqs\.([a-z0-9-]+)\.amazonaws\.com/)?.[1];
}
