// AL2 boots through /etc/eks/bootstrap.sh. The user's MIME parts run first, then Karpless's bootstrap script, as in
// Karpenter (so a user script can prepare the host before the kubelet starts).
import { type BootstrapInput, registrationFlags } from './input';
import { CONTENT_TYPE_SHELL, isMime, type MimePart, parseMime, serializeMime } from './mime';

const quote = (s: string) => `'${s.replace(/'/g, `'"'"'`)}'`;

export function al2BootstrapScript(input: BootstrapInput): string {
  const extra = registrationFlags(input);
  const maxPods = input.kubelet?.maxPods ?? input.maxPods;
  const args = [
    `/etc/eks/bootstrap.sh ${quote(input.cluster.name)}`,
    `--apiserver-endpoint ${quote(input.cluster.endpoint)}`,
    `--b64-cluster-ca ${quote(input.cluster.caData)}`,
  ];
  const dns = input.kubelet?.clusterDNS?.[0];
  if (dns) args.push(`--dns-cluster-ip ${quote(dns)}`);
  if (maxPods !== undefined) args.push('--use-max-pods false');
  if (maxPods !== undefined) extra.push(`--max-pods=${maxPods}`);
  if (extra.length) args.push(`--kubelet-extra-args ${quote(extra.join(' '))}`);
  return `#!/bin/bash -xe\nexec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1\n${args.join(' \\\n')}`;
}

export function al2UserData(input: BootstrapInput): string {
  let user: MimePart[] = [];
  if (input.customUserData?.trim()) {
    user = isMime(input.customUserData)
      ? parseMime(input.customUserData)
      : [{ contentType: CONTENT_TYPE_SHELL, content: input.customUserData }];
  }
  return serializeMime([...user, { contentType: CONTENT_TYPE_SHELL, content: al2BootstrapScript(input) }]);
}
