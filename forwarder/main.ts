// The forwarder process: watch, batch, send; probes on KARPLESS_HEALTH_PORT; JSON logs; graceful stop on SIGTERM
// (flushes what is waiting before the pod goes away).
import { SQSClient } from '@aws-sdk/client-sqs';
import { configFromEnv } from './config';
import { Forwarder } from './forwarder';
import { startHealthServer } from './health';
import { endpointFromEnv, KubeHttp } from './kube-http';
import { errorMessage, jsonLogger, type LogLevel } from './log';
import { SqsSink } from './sqs-sink';

const LEVELS: LogLevel[] = ['DEBUG', 'INFO', 'WARN', 'ERROR'];

async function main(): Promise<void> {
  const config = configFromEnv();
  const base = jsonLogger(undefined, { component: 'karpless-forwarder', cluster: config.cluster });
  const min = LEVELS.indexOf(config.logLevel);
  const log = {
    log: (level: LogLevel, message: string, fields?: Record<string, unknown>) =>
      LEVELS.indexOf(level) >= min && base.log(level, message, fields),
  };
  const forwarder = new Forwarder({
    cluster: config.cluster,
    http: new KubeHttp(endpointFromEnv()),
    sink: new SqsSink(config.queueUrl, new SQSClient({ region: config.region })),
    timing: config.timing,
    log,
  });
  const health = await startHealthServer(config.healthPort, forwarder);
  forwarder.start();
  log.log('INFO', 'started', { healthPort: health.port, timing: config.timing });

  const shutdown = async (signal: string) => {
    log.log('INFO', 'stopping', { signal });
    await forwarder.stop();
    health.close();
    log.log('INFO', 'stopped', { sentMessages: forwarder.flusher.sentMessages });
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(
    `${JSON.stringify({ level: 'ERROR', message: 'forwarder failed to start', error: errorMessage(err) })}\n`,
  );
  process.exitCode = 1;
});
