// The forwarder exactly as `karpless forwarder manifest` runs it: the command, arguments and environment of the
// generated Deployment, the ConfigMap's files at the Deployment's mount path, against the fake Kubernetes API and a
// FIFO queue on moto_server, whose URL the manifest is generated for (the SQS client sends to the queue URL's
// host). Only what a cluster provides is added: where the API server is (in a pod, the service-account mount), and
// credentials and region (IRSA and Pod Identity inject them). The forwarder process is not given the moto account
// header, so the queue lives in moto's default account.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateQueueCommand, DeleteMessageCommand, type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleForwarder } from '../../forwarder/bundle';
import { forwarderManifests } from '../../forwarder/manifests';
import { imageNode } from '../../testkit/image-node';
import { pendingPod, readyNode } from '../../testkit/watch-objects';
import { FakeKubeApi } from '../fake-kube-api/server';
import { type Emulator, emulator } from './emulator';

const MOTO_DEFAULT_ACCOUNT = '123456789012';
const CLUSTER = 'fwdtest';

interface Container {
  command: string[];
  args: string[];
  env: { name: string; value: string }[];
  volumeMounts: { name: string; mountPath: string }[];
  readinessProbe: { httpGet: { path: string } };
}
interface PodSpec {
  containers: Container[];
  volumes: { name: string; configMap: { name: string } }[];
}

let aws: Emulator;
let api: FakeKubeApi;
let queueUrl: string;
let child: ChildProcess | undefined;
let root: string;
let healthPort: number;
let output = '';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  aws = emulator({ account: MOTO_DEFAULT_ACCOUNT });
  queueUrl = (
    await aws.sqs.send(
      new CreateQueueCommand({
        QueueName: `karpless-${CLUSTER}-events.fifo`,
        Attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'true' },
      }),
    )
  ).QueueUrl as string;
  api = new FakeKubeApi();
  await api.start();
  api.put('nodes', readyNode('n1'));
  api.put('pods', pendingPod('web-1', 'shop'));
  api.put('pods', pendingPod('web-2', 'shop'));

  const manifests = forwarderManifests({ cluster: CLUSTER, queueUrl, script: await bundleForwarder() });
  const deployment = manifests.find((m) => m.kind === 'Deployment') as unknown as {
    spec: { template: { spec: PodSpec } };
  };
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0] as Container;
  // The ConfigMap's files where the Deployment mounts them, under a scratch root.
  root = mkdtempSync(join(tmpdir(), 'karpless-forwarder-'));
  for (const mount of container.volumeMounts) {
    const volume = pod.volumes.find((v) => v.name === mount.name);
    const source = manifests.find(
      (m) => m.kind === 'ConfigMap' && (m.metadata as { name: string }).name === volume?.configMap.name,
    ) as unknown as { data: Record<string, string> };
    mkdirSync(join(root, mount.mountPath), { recursive: true });
    for (const [file, text] of Object.entries(source.data)) writeFileSync(join(root, mount.mountPath, file), text);
  }
  const args = container.args.map((a) =>
    container.volumeMounts.reduce((arg, m) => (arg.startsWith(m.mountPath) ? join(root, arg) : arg), a),
  );
  const [command] = container.command;
  expect(command).toBe('node');
  healthPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    ...Object.fromEntries(container.env.map((e) => [e.name, e.value])),
    // The manifest's 8080 may be taken on a shared test machine; the probe below uses the port given here.
    KARPLESS_HEALTH_PORT: String(healthPort),
    KUBE_API_URL: api.url,
    KUBE_TOKEN: 'sa-token',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  // The image's Node release, not the test's own: flags and module loading differ between majors.
  child = spawn(imageNode(), args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  const ready = container.readinessProbe.httpGet.path;
  expect(
    await until(
      async () => (await fetch(`http://127.0.0.1:${healthPort}${ready}`).catch(() => undefined))?.ok === true,
    ),
    output,
  ).toBe(true);
}, 180_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
  }
  await api?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

const received: Message[] = [];
async function receive(): Promise<void> {
  const out = await aws.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
      VisibilityTimeout: 300,
    }),
  );
  received.push(...(out.Messages ?? []));
  // Deleted as the provisioner's event source does: a FIFO group hands out its next message only after that.
  for (const m of out.Messages ?? []) {
    await aws.sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle }));
  }
}

type Body = { cluster: string; kind: string; refs: { namespace?: string; name: string }[] };
const bodies = () => received.map((m) => JSON.parse(m.Body ?? '{}') as Body);
/** Receives, then asks `check` of everything received so far. */
const receivedUntil = (check: () => boolean) => async () => {
  await receive();
  return check();
};
const pendingRefs = () =>
  bodies()
    .filter((b) => b.kind === 'PodsPending')
    .flatMap((b) => b.refs.map((r) => `${r.namespace}/${r.name}`));

describe('the forwarder as the manifest runs it', () => {
  it('batches the pending pods it lists into the FIFO queue, in the cluster message group', async () => {
    // The forwarder's own log says why when nothing arrives.
    expect(await until(receivedUntil(() => pendingRefs().length >= 2)), output).toBe(true);
    expect(pendingRefs().sort()).toEqual(['shop/web-1', 'shop/web-2']);
    const first = received.find((m) => (JSON.parse(m.Body ?? '{}') as Body).kind === 'PodsPending');
    expect(first?.Attributes?.MessageGroupId).toBe(CLUSTER);
    expect(first?.MessageAttributes?.kind?.StringValue).toBe('PodsPending');
    expect(bodies().every((b) => b.cluster === CLUSTER)).toBe(true);
    expect(bodies().map((b) => b.kind)).toContain('NodeChanged');
  });

  it('sends a pod that turns pending later in a new batch, and stops cleanly on SIGTERM', async () => {
    api.put('pods', pendingPod('web-3', 'shop'));
    expect(await until(receivedUntil(() => pendingRefs().includes('shop/web-3'))), output).toBe(true);
    const exited = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));
    child?.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toMatch(/"message":"stopped"/);
  });
});
