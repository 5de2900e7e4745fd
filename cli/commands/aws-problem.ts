// One line for what an AWS-reading command (status, nodeclaims, explain --table, catalog refresh) needs when AWS
// refuses it: which option to pass or which variable to set, never the SDK's raw text ("Region is missing",
// "Could not load credentials from any providers") or a stack trace.

export interface AwsProblemContext {
  /** The DynamoDB table read, to name it when it does not exist. */
  table?: string;
  /** The CloudFormation stack read, to name it when it does not exist. */
  stack?: string;
  region?: string;
}

const CREDENTIALS =
  'set AWS_PROFILE (after `aws sso login` for an SSO profile), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY';

/** The one-line explanation of `err`. */
export function awsProblem(err: unknown, c: AwsProblemContext = {}): string {
  const name = (err as { name?: string })?.name ?? '';
  const message = err instanceof Error ? err.message : String(err);
  const where = c.region ? ` in ${c.region}` : '';
  if (/region is missing/i.test(message)) return 'no AWS region: pass --region REGION or set AWS_REGION';
  if (name === 'CredentialsProviderError' || /could not load credentials/i.test(message)) {
    return `no AWS credentials: ${CREDENTIALS}`;
  }
  if (
    /^(UnrecognizedClientException|InvalidClientTokenId|ExpiredToken(Exception)?|InvalidSignatureException|SignatureDoesNotMatch|AuthFailure)$/.test(
      name,
    )
  ) {
    return `AWS refused the credentials (${name}): refresh them or ${CREDENTIALS}`;
  }
  if (/^(AccessDenied(Exception)?|UnauthorizedOperation)$/.test(name)) {
    return `AWS denied access (${name}): ${firstLine(message)}`;
  }
  if (c.table && name === 'ResourceNotFoundException') {
    return `table ${c.table} not found${where}: pass --table with the stack's TableName output and --region with its region`;
  }
  if (c.stack && name === 'ValidationError' && /does not exist/i.test(message)) {
    return `stack ${c.stack} not found${where}: deploy it (npx cdk deploy ${c.stack}), or pass --clusters with the file it was deployed from`;
  }
  if (/ENOTFOUND|ECONNREFUSED|getaddrinfo/.test(message)) {
    return `cannot reach AWS${where}: ${firstLine(message)} (check --region and --endpoint-url)`;
  }
  return `${name && name !== 'Error' ? `${name}: ` : ''}${firstLine(message)}`;
}

const firstLine = (s: string) => s.split('\n')[0]?.trim() ?? '';
