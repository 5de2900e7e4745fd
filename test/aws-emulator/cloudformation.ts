// A minimal CloudFormation client for the smoke deploy: the project has no @aws-sdk/client-cloudformation, and the
// Query protocol is a signed form POST with an XML answer. Signed with SigV4 as the SDK signs, so moto_server
// routes it to CloudFormation by the credential scope.
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { EMULATOR_CREDENTIALS, type Emulator } from './emulator';

export class CloudFormationQuery {
  private readonly signer: SignatureV4;

  constructor(private readonly aws: Emulator) {
    this.signer = new SignatureV4({
      service: 'cloudformation',
      region: aws.region,
      credentials: EMULATOR_CREDENTIALS,
      sha256: Sha256,
    });
  }

  /** Sends one action; throws with CloudFormation's error code and message on a non-2xx answer. */
  async call(action: string, params: Record<string, string>): Promise<string> {
    const url = new URL(this.aws.endpoint);
    const body = new URLSearchParams({ Action: action, Version: '2010-05-15', ...params }).toString();
    const request = new HttpRequest({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      port: Number(url.port),
      path: '/',
      headers: {
        host: url.host,
        'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
        'x-moto-account-id': this.aws.account,
      },
      body,
    });
    const signed = await this.signer.sign(request);
    const res = await fetch(`${this.aws.endpoint}/`, {
      method: 'POST',
      headers: signed.headers as Record<string, string>,
      body,
    });
    const text = await res.text();
    if (!res.ok) {
      throw new Error(
        `cloudformation:${action} ${res.status}: ${tag(text, 'Code') ?? ''} ${tag(text, 'Message') ?? text.slice(0, 300)}`,
      );
    }
    return text;
  }
}

/** The text of the first <name> element. */
export const tag = (xml: string, name: string): string | undefined =>
  new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(xml)?.[1];

/** The text of every <name> element inside each <member> of the answer. */
export function members(xml: string, fields: string[]): Record<string, string | undefined>[] {
  return [...xml.matchAll(/<member>([\s\S]*?)<\/member>/g)].map((m) =>
    Object.fromEntries(fields.map((f) => [f, tag(m[1] ?? '', f)])),
  );
}
