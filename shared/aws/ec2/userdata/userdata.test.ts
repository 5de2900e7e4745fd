import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { ClusterInfo } from '../nodeclass';
import { userDataFor } from './index';
import type { BootstrapInput } from './input';
import { parseMime } from './mime';

const GOLDEN = join(import.meta.dirname, '..', '__golden__');

/** Compares with the reviewed file; `UPDATE_GOLDEN=1` rewrites it (then review the diff before committing). */
function golden(name: string, actual: string): void {
  const path = join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(path, actual);
  expect(actual).toBe(readFileSync(path, 'utf8'));
}

const cluster: ClusterInfo = {
  name: 'prod-a',
  region: 'us-east-1',
  endpoint: 'https://ABCDEF.gr7.us-east-1.eks.amazonaws.com',
  caData: 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==',
  serviceCidr: '10.100.0.0/16',
  kubernetesVersion: '1.31',
};

const input: BootstrapInput = {
  cluster,
  labels: {
    'karpenter.sh/nodepool': 'default',
    'karpenter.sh/capacity-type': 'spot',
    'node.kubernetes.io/instance-type': 'm5.large',
    'kubernetes.io/arch': 'amd64',
    'example.kubernetes.io/restricted': 'dropped',
    team: 'web',
  },
  taints: [{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }],
  kubelet: { maxPods: 58, clusterDNS: ['10.100.0.10'], evictionHard: { 'memory.available': '5%' } },
};
const startup = [{ key: 'ebs.csi.aws.com/agent-not-ready', effect: 'NoExecute' as const }];

describe('AL2023 userData', () => {
  it('is a NodeConfig with cluster, kubelet config, labels and taints (startup taints included)', () => {
    const out = userDataFor('AL2023', { ...input, taints: [...input.taints, ...startup] });
    golden('al2023.txt', out);
    const [part] = parseMime(out);
    expect(part?.contentType).toBe('application/node.eks.aws');
    const doc = parseYaml(part?.content ?? '');
    expect(doc.spec.cluster).toEqual({
      name: 'prod-a',
      apiServerEndpoint: cluster.endpoint,
      certificateAuthority: cluster.caData,
      cidr: '10.100.0.0/16',
    });
    expect(doc.spec.kubelet.config.maxPods).toBe(58);
    expect(doc.spec.kubelet.flags).toContain(
      '--register-with-taints=dedicated=web:NoSchedule,ebs.csi.aws.com/agent-not-ready:NoExecute',
    );
    expect(doc.spec.kubelet.flags[0]).not.toContain('example.kubernetes.io/restricted');
  });

  it('appends a user MIME archive part by part after its own NodeConfig', () => {
    const user = [
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="BOUNDARY"',
      '',
      '--BOUNDARY',
      'Content-Type: text/x-shellscript; charset="us-ascii"',
      '',
      '#!/bin/bash',
      'echo hello',
      '',
      '--BOUNDARY',
      'Content-Type: application/node.eks.aws',
      '',
      'apiVersion: node.eks.aws/v1alpha1',
      'kind: NodeConfig',
      'spec:',
      '  kubelet:',
      '    config:',
      '      shutdownGracePeriod: 30s',
      '',
      '--BOUNDARY--',
      'epilogue is ignored',
    ].join('\n');
    const out = userDataFor('AL2023', { ...input, customUserData: user });
    golden('al2023-merged.txt', out);
    const parts = parseMime(out);
    expect(parts.map((p) => p.contentType)).toEqual([
      'application/node.eks.aws',
      'text/x-shellscript; charset="us-ascii"',
      'application/node.eks.aws',
    ]);
    expect(parts[1]?.content).toBe('#!/bin/bash\necho hello');
  });

  it('wraps a bare shell script or NodeConfig as one part of the right type', () => {
    expect(parseMime(userDataFor('AL2023', { ...input, customUserData: '#!/bin/bash\necho hi' }))[1]?.contentType).toBe(
      'text/x-shellscript; charset="us-ascii"',
    );
    const nc = 'apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec: {}\n';
    expect(parseMime(userDataFor('AL2023', { ...input, customUserData: nc }))[1]?.contentType).toBe(
      'application/node.eks.aws',
    );
  });

  it('rejects a MIME archive without a boundary with a clear message', () => {
    expect(() =>
      userDataFor('AL2023', { ...input, customUserData: 'MIME-Version: 1.0\nContent-Type: text/plain\n\nx' }),
    ).toThrow(/multipart Content-Type with a boundary/);
  });
});

describe('Bottlerocket userData', () => {
  it('is TOML settings with cluster identity, labels, taints and kubelet settings', () => {
    const out = userDataFor('Bottlerocket', { ...input, taints: [...input.taints, ...startup] });
    golden('bottlerocket.toml', out);
    const k8s = (parse(out).settings as Record<string, Record<string, unknown>>).kubernetes;
    expect(k8s).toMatchObject({
      'cluster-name': 'prod-a',
      'api-server': cluster.endpoint,
      'cluster-certificate': cluster.caData,
      'cluster-dns-ip': '10.100.0.10',
      'max-pods': 58,
      'node-labels': { 'karpenter.sh/nodepool': 'default', 'kubernetes.io/arch': 'amd64', team: 'web' },
      'node-taints': { dedicated: ['web:NoSchedule'], 'ebs.csi.aws.com/agent-not-ready': [':NoExecute'] },
    });
  });

  it('merges over the user TOML: user settings kept, cluster identity and labels overridden', () => {
    const user = [
      '[settings.kubernetes]',
      'cluster-name = "wrong"',
      'image-gc-high-threshold-percent = 85',
      '[settings.kubernetes.node-labels]',
      'team = "batch"',
      'owner = "alice"',
      '[settings.kubernetes.node-taints]',
      'dedicated = ["web:NoExecute"]',
      '[settings.host-containers.admin]',
      'enabled = true',
    ].join('\n');
    const out = userDataFor('Bottlerocket', { ...input, customUserData: user });
    golden('bottlerocket-merged.toml', out);
    const doc = parse(out) as { settings: Record<string, Record<string, unknown>> };
    expect(doc.settings['host-containers']).toEqual({ admin: { enabled: true } });
    const k8s = doc.settings.kubernetes as Record<string, Record<string, unknown>>;
    expect(k8s['cluster-name']).toBe('prod-a');
    expect(k8s['image-gc-high-threshold-percent']).toBe(85);
    expect(k8s['node-labels']).toMatchObject({ team: 'web', owner: 'alice' });
    expect(k8s['node-taints']).toEqual({ dedicated: ['web:NoExecute', 'web:NoSchedule'] });
  });

  it('names invalid TOML as the problem', () => {
    expect(() => userDataFor('Bottlerocket', { ...input, customUserData: '[settings\nx = ' })).toThrow(/must be TOML/);
  });
});

describe('AL2 and Custom userData', () => {
  it('AL2 runs the user script first, then bootstrap.sh with labels, taints and max pods', () => {
    const out = userDataFor('AL2', { ...input, customUserData: '#!/bin/bash\necho first' });
    golden('al2.txt', out);
    const parts = parseMime(out);
    expect(parts[0]?.content).toBe('#!/bin/bash\necho first');
    expect(parts[1]?.content).toContain("/etc/eks/bootstrap.sh 'prod-a'");
    expect(parts[1]?.content).toContain('--max-pods=58');
  });

  it('Custom passes the user data through untouched', () => {
    expect(userDataFor('Custom', { ...input, customUserData: 'anything' })).toBe('anything');
  });
});
