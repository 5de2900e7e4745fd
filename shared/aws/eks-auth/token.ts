// The EKS bearer token, built the way aws-iam-authenticator verifies it: a presigned STS GetCallerIdentity URL whose
// signature covers the `x-k8s-aws-id` header (so a token minted for one cluster is useless on another), encoded as
// `k8s-aws-v1.` + base64url without padding. The API server accepts it for 15 minutes after its X-Amz-Date.
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';

export const TOKEN_PREFIX = 'k8s-aws-v1.';
export const CLUSTER_ID_HEADER = 'x-k8s-aws-id';
/** How long the presigned URL itself claims to be valid; the authenticator ignores it in favour of 15 minutes. */
export const PRESIGN_EXPIRES_SECONDS = 60;
/** The server-side validity window of a token, counted from its signing time. */
export const TOKEN_LIFETIME_MS = 15 * 60_000;
/** Refresh a minute early so a token never expires mid-request. */
export const TOKEN_REFRESH_AFTER_MS = 14 * 60_000;

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

export type CredentialProvider = () => Promise<AwsCredentials>;

export interface EksToken {
  token: string;
  /** Epoch ms when the API server stops accepting it. */
  expiresAt: number;
}

export interface TokenRequest {
  cluster: string;
  region: string;
  credentials: CredentialProvider;
  /** Epoch ms; the signing time. */
  now?: number;
}

/** The regional STS host; China regions live in their own partition's domain. */
export function stsHost(region: string): string {
  const suffix = region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `sts.${region}.${suffix}`;
}

export async function createEksToken(request: TokenRequest): Promise<EksToken> {
  const now = request.now ?? Date.now();
  const host = stsHost(request.region);
  const signer = new SignatureV4({
    service: 'sts',
    region: request.region,
    credentials: request.credentials,
    sha256: Sha256,
  });
  const unsigned = new HttpRequest({
    method: 'GET',
    protocol: 'https:',
    hostname: host,
    path: '/',
    headers: { host, [CLUSTER_ID_HEADER]: request.cluster },
    query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
  });
  const signed = await signer.presign(unsigned, { expiresIn: PRESIGN_EXPIRES_SECONDS, signingDate: new Date(now) });
  const url = `https://${host}/?${encodeQuery(signed.query ?? {})}`;
  return { token: TOKEN_PREFIX + Buffer.from(url, 'utf8').toString('base64url'), expiresAt: now + TOKEN_LIFETIME_MS };
}

function encodeQuery(query: Record<string, string | string[] | null | undefined>): string {
  return Object.keys(query)
    .sort()
    .flatMap((key) => {
      const value = query[key];
      const values = value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];
      return values.map((v) => `${rfc3986(key)}=${rfc3986(v)}`);
    })
    .join('&');
}

const rfc3986 = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Caches one token per cluster and mints a new one when the cached one is 14 minutes old. */
export class EksTokenProvider {
  private cached: (EksToken & { mintedAt: number }) | undefined;
  private inflight: Promise<EksToken> | undefined;

  constructor(
    private readonly options: { cluster: string; region: string; credentials: CredentialProvider },
    private readonly clock: () => number = Date.now,
  ) {}

  async getToken(): Promise<string> {
    const now = this.clock();
    if (this.cached && now - this.cached.mintedAt < TOKEN_REFRESH_AFTER_MS) return this.cached.token;
    // Concurrent requests at expiry share one signing instead of each minting a token.
    this.inflight ??= createEksToken({ ...this.options, now }).finally(() => {
      this.inflight = undefined;
    });
    const fresh = await this.inflight;
    this.cached = { ...fresh, mintedAt: now };
    return fresh.token;
  }
}
