import { describe, expect, it, vi } from 'vitest';
import { createEksToken, EksTokenProvider, stsHost, TOKEN_LIFETIME_MS, TOKEN_PREFIX } from './token';

const credentials = async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'tok/en+=' });
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

function decode(token: string): URL {
  expect(token.startsWith(TOKEN_PREFIX)).toBe(true);
  const body = token.slice(TOKEN_PREFIX.length);
  expect(body).toMatch(/^[A-Za-z0-9_-]+$/); // base64url, no padding
  return new URL(Buffer.from(body, 'base64url').toString('utf8'));
}

// aws-iam-authenticator rejects any query parameter outside this list.
const ALLOWED = new Set([
  'action',
  'version',
  'x-amz-algorithm',
  'x-amz-credential',
  'x-amz-date',
  'x-amz-expires',
  'x-amz-security-token',
  'x-amz-signature',
  'x-amz-signedheaders',
]);

describe('createEksToken', () => {
  it('encodes a presigned GetCallerIdentity URL for the regional STS endpoint', async () => {
    const { token, expiresAt } = await createEksToken({
      cluster: 'prod-a',
      region: 'eu-west-1',
      credentials,
      now: NOW,
    });
    const url = decode(token);
    expect(url.protocol).toBe('https:');
    expect(url.host).toBe('sts.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe('/');
    expect(url.searchParams.get('Action')).toBe('GetCallerIdentity');
    expect(url.searchParams.get('Version')).toBe('2011-06-15');
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('60');
    expect(url.searchParams.get('X-Amz-Date')).toBe('20261121T120000Z');
    expect(url.searchParams.get('X-Amz-Credential')).toBe('AKIDEXAMPLE/20261121/eu-west-1/sts/aws4_request');
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe('tok/en+=');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(expiresAt).toBe(NOW + TOKEN_LIFETIME_MS);
  });

  it('signs the host and the cluster id header', async () => {
    const { token } = await createEksToken({ cluster: 'prod-a', region: 'us-east-1', credentials, now: NOW });
    const signed = decode(token).searchParams.get('X-Amz-SignedHeaders')?.split(';');
    expect(signed).toEqual(['host', 'x-k8s-aws-id']);
  });

  it('uses only the query parameters the authenticator allows', async () => {
    const { token } = await createEksToken({ cluster: 'c', region: 'us-east-1', credentials, now: NOW });
    const keys = [...decode(token).searchParams.keys()].map((k) => k.toLowerCase());
    for (const key of keys) expect(ALLOWED.has(key), key).toBe(true);
    expect(keys).toHaveLength(9);
  });

  it('binds the signature to the cluster name', async () => {
    const a = await createEksToken({ cluster: 'a', region: 'us-east-1', credentials, now: NOW });
    const b = await createEksToken({ cluster: 'b', region: 'us-east-1', credentials, now: NOW });
    expect(decode(a.token).searchParams.get('X-Amz-Signature')).not.toBe(
      decode(b.token).searchParams.get('X-Amz-Signature'),
    );
  });

  it('omits the security token for long-term credentials', async () => {
    const longTerm = async () => ({ accessKeyId: 'AKID', secretAccessKey: 's' });
    const { token } = await createEksToken({ cluster: 'c', region: 'us-east-1', credentials: longTerm, now: NOW });
    expect(decode(token).searchParams.has('X-Amz-Security-Token')).toBe(false);
  });

  it('uses the China partition domain for cn- regions', () => {
    expect(stsHost('cn-north-1')).toBe('sts.cn-north-1.amazonaws.com.cn');
    expect(stsHost('ap-south-1')).toBe('sts.ap-south-1.amazonaws.com');
  });
});

describe('EksTokenProvider', () => {
  it('reuses a token for 14 minutes and then mints a new one', async () => {
    let now = NOW;
    const creds = vi.fn(credentials);
    const provider = new EksTokenProvider({ cluster: 'c', region: 'us-east-1', credentials: creds }, () => now);
    const first = await provider.getToken();
    now += 13 * 60_000;
    expect(await provider.getToken()).toBe(first);
    now += 60_000;
    const second = await provider.getToken();
    expect(second).not.toBe(first);
    expect(decode(second).searchParams.get('X-Amz-Date')).toBe('20261121T121400Z');
  });

  it('shares one signing between concurrent callers', async () => {
    const creds = vi.fn(credentials);
    const provider = new EksTokenProvider({ cluster: 'c', region: 'us-east-1', credentials: creds }, () => NOW);
    const tokens = await Promise.all([provider.getToken(), provider.getToken(), provider.getToken()]);
    expect(new Set(tokens).size).toBe(1);
    expect(creds).toHaveBeenCalledTimes(1);
  });
});
