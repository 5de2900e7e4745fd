// A signed client for the AWS Query protocol (form POST in, XML out), for the two read calls `karpless status` needs
// from services the project has no SDK client for: CloudFormation (DescribeStacks, ListStackResources) and
// CloudWatch (DescribeAlarms, GetMetricStatistics). Requests are signed with SigV4 exactly as the SDK signs them;
// credentials come from an SDK client's own default chain (environment, profile, SSO, instance role), so the
// caller's usual AWS settings apply. docs/deploy.md, "Seeing the fleet".
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';

export interface QueryCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface QueryClientOptions {
  /** The signing name: `cloudformation`, `monitoring` (CloudWatch). */
  service: string;
  /** The API version every request names. */
  version: string;
  region: string;
  /** Another endpoint (moto_server, LocalStack); by default the service's regional AWS endpoint. */
  endpoint?: string;
  credentials: () => Promise<QueryCredentials>;
  /** Extra headers on every request (e.g. moto's account header in tests). */
  headers?: Record<string, string>;
}

/** An error answer, named by its AWS error code (ValidationError, AccessDenied, ...) as the SDK names them. */
export class QueryServiceError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = code;
  }
}

export class AwsQueryClient {
  private readonly url: URL;

  constructor(private readonly o: QueryClientOptions) {
    this.url = new URL(o.endpoint ?? `https://${o.service}.${o.region}.amazonaws.com/`);
  }

  /** One action; the XML answer, or a QueryServiceError. */
  async call(action: string, params: Record<string, string> = {}): Promise<string> {
    const body = new URLSearchParams({ Action: action, Version: this.o.version, ...params }).toString();
    const signer = new SignatureV4({
      service: this.o.service,
      region: this.o.region,
      credentials: await this.o.credentials(),
      sha256: Sha256,
    });
    const path = this.url.pathname || '/';
    const signed = await signer.sign(
      new HttpRequest({
        method: 'POST',
        protocol: this.url.protocol,
        hostname: this.url.hostname,
        ...(this.url.port ? { port: Number(this.url.port) } : {}),
        path,
        headers: {
          host: this.url.host,
          'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
          ...this.o.headers,
        },
        body,
      }),
    );
    const res = await fetch(new URL(path, this.url), {
      method: 'POST',
      headers: signed.headers as Record<string, string>,
      body,
    });
    const text = await res.text();
    if (!res.ok) {
      const code = xmlText(text, 'Code') ?? `HTTP${res.status}`;
      throw new QueryServiceError(code, xmlText(text, 'Message') ?? text.slice(0, 200), res.status);
    }
    return text;
  }

  /** Every page of a NextToken-paged action. */
  async callAll(action: string, params: Record<string, string> = {}): Promise<string[]> {
    const pages: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.call(action, { ...params, ...(token ? { NextToken: token } : {}) });
      pages.push(page);
      token = xmlText(page, 'NextToken');
    } while (token);
    return pages;
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescapeXml = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e: string) =>
    e.startsWith('#x')
      ? String.fromCodePoint(Number.parseInt(e.slice(2), 16))
      : e.startsWith('#')
        ? String.fromCodePoint(Number(e.slice(1)))
        : (ENTITIES[e] ?? m),
  );

/** The text of the first <name> element, unescaped. */
export function xmlText(xml: string, name: string): string | undefined {
  const m = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(xml);
  return m ? unescapeXml(m[1] ?? '') : undefined;
}

/** The bodies of the <member> elements directly inside the first <container> element, nested members kept whole. */
export function xmlMembers(xml: string, container: string): string[] {
  const start = xml.indexOf(`<${container}>`);
  if (start < 0) return [];
  const end = xml.indexOf(`</${container}>`, start);
  const inner = xml.slice(start + container.length + 2, end < 0 ? undefined : end);
  const out: string[] = [];
  let depth = 0;
  let from = 0;
  for (const m of inner.matchAll(/<(\/?)member>/g)) {
    if (m[1] === '') {
      if (depth === 0) from = (m.index ?? 0) + m[0].length;
      depth++;
    } else {
      depth--;
      if (depth === 0) out.push(inner.slice(from, m.index));
    }
  }
  return out;
}
