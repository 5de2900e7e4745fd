// Recomputes the SigV4 query-string signature the way STS verifies it (node:crypto, independent of the signer),
// so a token whose signature does not cover `x-k8s-aws-id: <cluster>` fails here rather than at the API server.
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createEksToken, TOKEN_PREFIX } from './token';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const hmac = (key: Buffer | string, s: string) => createHmac('sha256', key).update(s).digest();
const rfc3986 = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function expectedSignature(url: URL, cluster: string, secret: string): string {
  const params = [...url.searchParams.entries()].filter(([k]) => k !== 'X-Amz-Signature');
  const canonicalQuery = params
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalRequest = [
    'GET',
    '/',
    canonicalQuery,
    `host:${url.host}\nx-k8s-aws-id:${cluster}\n`,
    'host;x-k8s-aws-id',
    sha256(''),
  ].join('\n');
  const date = url.searchParams.get('X-Amz-Date') ?? '';
  const scope = (url.searchParams.get('X-Amz-Credential') ?? '').split('/').slice(1).join('/');
  const [day = '', region = '', service = ''] = scope.split('/');
  const stringToSign = ['AWS4-HMAC-SHA256', date, scope, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
  return createHmac('sha256', key).update(stringToSign).digest('hex');
}

describe('EKS token signature', () => {
  it('is a valid SigV4 signature over the cluster id header, as STS recomputes it', async () => {
    const credentials = async () => ({
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG',
      sessionToken: 'FwoG/ab+c=',
    });
    const { token } = await createEksToken({
      cluster: 'prod-a',
      region: 'eu-central-1',
      credentials,
      now: Date.UTC(2026, 4, 2, 3, 4, 5),
    });
    const url = new URL(Buffer.from(token.slice(TOKEN_PREFIX.length), 'base64url').toString());
    const signature = url.searchParams.get('X-Amz-Signature');
    expect(signature).toBe(expectedSignature(url, 'prod-a', 'wJalrXUtnFEMI/K7MDENG'));
    // The same URL presented for another cluster does not verify.
    expect(signature).not.toBe(expectedSignature(url, 'prod-b', 'wJalrXUtnFEMI/K7MDENG'));
  });
});
