// Every AWS-reading command, run with no region or no credentials (and no AWS config files, no instance metadata),
// says in one line what to pass or set, never the SDK's own text.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bufferIO } from '../io';
import { main } from '../main';
import { awsProblem } from './aws-problem';

async function run(...args: string[]) {
  const io = bufferIO();
  const code = await main(args, io);
  return { code, err: io.stderr.join('').trimEnd() };
}

const NO_CREDENTIALS =
  'no AWS credentials: set AWS_PROFILE (after `aws sso login` for an SSO profile), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY';
const NO_REGION = 'no AWS region: pass --region REGION or set AWS_REGION';

beforeEach(() => {
  for (const k of ['AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_PROFILE', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) {
    vi.stubEnv(k, undefined);
  }
  vi.stubEnv('AWS_CONFIG_FILE', '/nonexistent/karpless-test/config');
  vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', '/nonexistent/karpless-test/credentials');
  vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('AWS-reading commands without AWS settings', () => {
  it('nodeclaims: no region, then no credentials', async () => {
    expect(await run('nodeclaims', '--table', 't', '--cluster', 'c')).toEqual({
      code: 1,
      err: `reading NodeClaims: ${NO_REGION}`,
    });
    expect(await run('nodeclaims', '--table', 't', '--cluster', 'c', '--region', 'us-west-2')).toEqual({
      code: 1,
      err: `reading NodeClaims: ${NO_CREDENTIALS}`,
    });
  });

  it('explain --table: no region, then no credentials', async () => {
    expect(await run('explain', 'n1', '--table', 't', '--cluster', 'c')).toEqual({
      code: 1,
      err: `reading decision records: ${NO_REGION}`,
    });
    vi.stubEnv('AWS_REGION', 'us-west-2');
    expect(await run('explain', 'n1', '--table', 't', '--cluster', 'c')).toEqual({
      code: 1,
      err: `reading decision records: ${NO_CREDENTIALS}`,
    });
  });

  it('catalog refresh: no credentials (its --region is required)', async () => {
    const r = await run('catalog', 'refresh', '--region', 'eu-west-1', '--out', '/nonexistent/karpless-test/c.json');
    expect(r.code).toBe(1);
    expect(r.err.split('\n').at(-1)).toBe(`karpless catalog refresh: ${NO_CREDENTIALS}`);
  });

  it('status: no credentials, one line per cluster; a missing clusters file says what to pass', async () => {
    const r = await run('status', '--clusters', 'clusters.example.yaml');
    expect(r.code).toBe(1);
    expect(r.err.split('\n')).toEqual([`demo: ${NO_CREDENTIALS}`, `prod-private: ${NO_CREDENTIALS}`]);
    expect(await run('status', '--clusters', 'no-such-clusters.yaml')).toEqual({
      code: 2,
      err: '--clusters: no-such-clusters.yaml not found; pass --clusters with the file the stacks were deployed from (see clusters.example.yaml)',
    });
  });
});

describe('awsProblem', () => {
  it('names a missing table or stack, refused credentials, and keeps other errors to their first line', () => {
    const named = (name: string, message: string) => Object.assign(new Error(message), { name });
    expect(
      awsProblem(named('ResourceNotFoundException', 'Requested resource not found'), { table: 'T', region: 'r' }),
    ).toBe("table T not found in r: pass --table with the stack's TableName output and --region with its region");
    expect(
      awsProblem(named('ValidationError', 'Stack with id karpless-x does not exist'), { stack: 'karpless-x' }),
    ).toBe(
      'stack karpless-x not found: deploy it (npx cdk deploy karpless-x), or pass --clusters with the file it was deployed from',
    );
    expect(awsProblem(named('ExpiredTokenException', 'The security token included in the request is expired'))).toMatch(
      /^AWS refused the credentials \(ExpiredTokenException\): refresh them or set AWS_PROFILE/,
    );
    expect(awsProblem(named('ThrottlingException', 'Rate exceeded\n  at stack'))).toBe(
      'ThrottlingException: Rate exceeded',
    );
  });
});
