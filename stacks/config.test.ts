import { describe, expect, it } from 'vitest';
import { DISRUPTION_SETTINGS_DEFAULTS, disruptionSettingsEnv } from '../shared/disruption/settings';
import { ValidationError } from '../shared/errors';
import { RESERVABLE } from './concurrency';
import { loadClusters, parseClusters, validateClusters } from './config';

const base = {
  name: 'demo',
  account: '111122223333',
  region: 'us-west-2',
  kubernetesVersion: '1.31',
  alarms: { email: 'oncall@example.com' },
};

function problems(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.problems;
    throw error;
  }
  throw new Error('expected a ValidationError');
}
const check = (cluster: Record<string, unknown>) => problems(() => validateClusters({ clusters: [cluster] }, 'c.yaml'));

describe('cluster config', () => {
  it('loads the example file with its defaults filled in', () => {
    const [demo, prod] = loadClusters('clusters.example.yaml');
    expect(demo).toEqual({
      ...base,
      endpoint: { access: 'public' },
      sweepSchedule: 'rate(1 minute)',
      gcSchedule: 'rate(1 minute)',
      interruption: { rebalance: 'record' },
      bindPods: false,
      alarms: { email: 'oncall@example.com' },
      logRetentionDays: 30,
      queueEncryption: 'sqs-managed',
      forwarder: { identity: 'pod-identity', namespace: 'karpless', serviceAccount: 'karpless-forwarder' },
      tags: {},
      settings: DISRUPTION_SETTINGS_DEFAULTS,
      concurrency: {
        maximum: { events: 2, interruption: 2, termination: 2 },
        reserved: { interruption: 2, termination: 2 },
      },
    });
    expect(prod).toMatchObject({
      name: 'prod-private',
      endpoint: { access: 'private', subnetIds: ['subnet-0a1b2c3d4e5f60718', 'subnet-0b1c2d3e4f5a60718'] },
      interruption: { rebalance: 'interrupt' },
      forwarder: { identity: 'irsa', oidcProviderArn: expect.stringMatching(/oidc-provider\//) },
      queueEncryption: 'kms',
      tags: { team: 'platform' },
    });
  });

  it('names the file, the cluster and the field of every problem at once', () => {
    expect(check({ ...base, account: 111122223333, region: 'Oregon', regoin: 'x' })).toEqual([
      'c.yaml: clusters[0] (demo): regoin: unknown field (known: name, account, region, kubernetesVersion, endpoint, sweep, gc, interruption, bindPods, alarms, logRetentionDays, queueEncryption, forwarder, tags, settings, nodePools, concurrency)',
      'c.yaml: clusters[0] (demo): account: expected a string (a 12-digit AWS account id), got number 111122223333; quote it, YAML reads it as a number',
      'c.yaml: clusters[0] (demo): region: "Oregon" is not valid (an AWS region such as us-west-2)',
    ]);
  });

  it('reads the disruption settings, Karpenter defaults first, and names a bad one by its field path', () => {
    const [demo] = validateClusters(
      { clusters: [{ ...base, settings: { spotToSpotConsolidation: true, consolidationValidationDelay: '30s' } }] },
      'c.yaml',
    );
    expect(demo?.settings).toEqual({
      ...DISRUPTION_SETTINGS_DEFAULTS,
      spotToSpotConsolidation: true,
      consolidationValidationDelayMs: 30_000,
    });
    expect(disruptionSettingsEnv(demo?.settings ?? DISRUPTION_SETTINGS_DEFAULTS)).toEqual({
      DISRUPTION_SETTINGS: '{"spotToSpotConsolidation":true,"consolidationValidationDelay":"30s"}',
    });
    expect(
      check({ ...base, settings: { spotToSpot: true, replacementTimeout: 'soon', minSavingFraction: 2 } }),
    ).toEqual([
      'c.yaml: clusters[0] (demo): settings.spotToSpot: unknown setting (known: spotToSpotConsolidation, consolidationValidationDelay, replacementTimeout, nominationWindow, minSavingFraction, splitConsolidation, nodeRepair, minValuesPolicy, preferencePolicy)',
      'c.yaml: clusters[0] (demo): settings.replacementTimeout: must be a duration such as 15s or 10m, got "soon"',
      'c.yaml: clusters[0] (demo): settings.minSavingFraction: must be a number from 0 up to (not including) 1, got 2',
    ]);
  });

  it('explains the YAML float trap of Kubernetes versions', () => {
    expect(check({ ...base, kubernetesVersion: 1.3 })).toEqual([
      'c.yaml: clusters[0] (demo): kubernetesVersion: write it as a string ("1.3"): YAML reads 1.30 as 1.3',
    ]);
  });

  it('requires subnets, security groups and a VPC for a private endpoint, and nothing else for a public one', () => {
    expect(check({ ...base, endpoint: { access: 'private', subnetIds: ['subnet-1', 'sg-0a1b2c3d'] } })).toEqual([
      'c.yaml: clusters[0] (demo): endpoint.vpcId: required (a VPC id such as vpc-0123456789abcdef0)',
      'c.yaml: clusters[0] (demo): endpoint.subnetIds[0]: expected subnet ids (subnet-…), got "subnet-1"',
      'c.yaml: clusters[0] (demo): endpoint.subnetIds[1]: expected subnet ids (subnet-…), got "sg-0a1b2c3d"',
      'c.yaml: clusters[0] (demo): endpoint.securityGroupIds: required: a non-empty list of security group ids (sg-…)',
    ]);
    expect(check({ ...base, endpoint: { access: 'public', subnetIds: ['subnet-0a1b2c3d'] } })).toEqual([
      'c.yaml: clusters[0] (demo): endpoint.subnetIds: only used with access: private',
    ]);
  });

  it('checks schedules, interruption options, retention and encryption', () => {
    expect(
      check({
        ...base,
        sweep: { schedule: 'every minute' },
        interruption: { rebalance: 'ignore' },
        logRetentionDays: 10,
        queueEncryption: 'aes',
      }),
    ).toEqual([
      'c.yaml: clusters[0] (demo): sweep.schedule: "every minute" is not valid (rate(...) or cron(...))',
      'c.yaml: clusters[0] (demo): interruption.rebalance: expected one of record, interrupt, got "ignore"',
      'c.yaml: clusters[0] (demo): logRetentionDays: number 10 is not a CloudWatch retention (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653)',
      'c.yaml: clusters[0] (demo): queueEncryption: expected one of sqs-managed, kms, got "aes"',
    ]);
    expect(
      validateClusters({ clusters: [{ ...base, gc: { schedule: 'cron(0/5 * * * ? *)' } }] }, 'c.yaml')[0]?.gcSchedule,
    ).toBe('cron(0/5 * * * ? *)');
  });

  it('reads the NodePools Karpless owns during a cut-over, absent by default', () => {
    expect(validateClusters({ clusters: [base] }, 'c.yaml')[0]?.nodePools).toBeUndefined();
    expect(
      validateClusters({ clusters: [{ ...base, nodePools: ['general', 'batch'] }] }, 'c.yaml')[0]?.nodePools,
    ).toEqual(['general', 'batch']);
    expect(check({ ...base, nodePools: [] })).toEqual([
      'c.yaml: clusters[0] (demo): nodePools: expected a non-empty list of NodePool names, got an empty list; omit it to own every NodePool',
    ]);
    expect(check({ ...base, nodePools: ['General', 'a', 'a'] })).toEqual([
      'c.yaml: clusters[0] (demo): nodePools[0]: "General" is not a NodePool name',
      'c.yaml: clusters[0] (demo): nodePools[2]: "a" is listed twice',
    ]);
  });

  it('wants exactly one alarm destination', () => {
    expect(check({ ...base, alarms: { email: 'a@b.c', snsTopicArn: 'arn:aws:sns:us-west-2:111122223333:t' } })).toEqual(
      ['c.yaml: clusters[0] (demo): alarms: give exactly one of email or snsTopicArn'],
    );
    expect(check({ ...base, alarms: undefined })).toEqual([
      'c.yaml: clusters[0] (demo): alarms: required section is missing',
    ]);
    expect(check({ ...base, alarms: { snsTopicArn: 'topic' } })).toEqual([
      'c.yaml: clusters[0] (demo): alarms.snsTopicArn: "topic" is not valid (an SNS topic ARN)',
    ]);
  });

  it('requires the OIDC provider for IRSA and rejects it for Pod Identity', () => {
    expect(check({ ...base, forwarder: { identity: 'irsa' } })).toEqual([
      'c.yaml: clusters[0] (demo): forwarder.oidcProviderArn: required (the cluster OIDC provider ARN)',
    ]);
    expect(
      check({
        ...base,
        forwarder: { oidcProviderArn: 'arn:aws:iam::111122223333:oidc-provider/x', namespace: 'Kube_System' },
      }),
    ).toEqual(['c.yaml: clusters[0] (demo): forwarder.namespace: "Kube_System" is not valid (a Kubernetes name)']);
  });

  it('rejects names that cannot make a stack or function name, and duplicates', () => {
    expect(check({ ...base, name: 'prod_eu' })[0]).toMatch(/name: "prod_eu" is not valid/);
    expect(check({ ...base, name: 'x'.repeat(41) })[0]).toMatch(/at most 40/);
    expect(problems(() => validateClusters({ clusters: [base, { ...base }] }, 'c.yaml'))).toEqual([
      'c.yaml: cluster name "demo" appears twice; stack names must be unique',
    ]);
  });

  it('rejects a file that is not a clusters list', () => {
    expect(problems(() => parseClusters('clusters: [', 'c.yaml'))[0]).toMatch(/^c\.yaml: not valid YAML/);
    expect(problems(() => parseClusters('name: demo', 'c.yaml'))).toEqual([
      'c.yaml: expected a top-level "clusters:" list',
    ]);
    expect(problems(() => parseClusters('clusters: []', 'c.yaml'))).toEqual(['c.yaml: clusters: the list is empty']);
    expect(problems(() => loadClusters('missing.yaml'))[0]).toMatch(/^missing\.yaml: cannot read the clusters file/);
    expect(problems(() => parseClusters('clusters: [3]', 'c.yaml'))).toEqual([
      'c.yaml: clusters[0]: (entry): expected a mapping, got number 3',
    ]);
  });
});

describe('Lambda concurrency', () => {
  const fleet = (n: number, extra: Record<string, unknown> = {}) =>
    validateClusters(
      { clusters: Array.from({ length: n }, (_, i) => ({ ...base, name: `c${i}`, ...extra })) },
      'c.yaml',
    );
  const reservedIn = (configs: ReturnType<typeof fleet>) =>
    configs.reduce((sum, c) => sum + c.concurrency.reserved.interruption + c.concurrency.reserved.termination, 0);

  it('reserves what fits the account pool: both functions, then the interruption function alone, then none', () => {
    expect(fleet(225)[0]?.concurrency.reserved).toEqual({ interruption: 2, termination: 2 });
    expect(fleet(226)[0]?.concurrency.reserved).toEqual({ interruption: 2, termination: 0 });
    expect(fleet(450)[0]?.concurrency.reserved).toEqual({ interruption: 2, termination: 0 });
    expect(fleet(500)[0]?.concurrency.reserved).toEqual({ interruption: 0, termination: 0 });
    // 500 clusters in one account and region fit Lambda's default 1,000 with its 100 unreserved kept free.
    for (const n of [1, 225, 226, 450, 451, 500]) expect(reservedIn(fleet(n))).toBeLessThanOrEqual(RESERVABLE);
    // Clusters in other regions draw on other pools.
    const split = validateClusters(
      {
        clusters: [
          { ...base, name: 'a' },
          { ...base, name: 'b', region: 'eu-west-1' },
        ],
      },
      'c.yaml',
    );
    expect(split.map((c) => c.concurrency.reserved.termination)).toEqual([2, 2]);
  });

  it('takes explicit values over the fleet default', () => {
    const [c] = fleet(500, { concurrency: { reserved: { termination: 4 }, maximum: { termination: 4 } } });
    expect(c?.concurrency).toEqual({
      maximum: { events: 2, interruption: 2, termination: 4 },
      reserved: { interruption: 0, termination: 4 },
    });
  });

  it('names a maximum out of range and a reservation that would throttle its event source', () => {
    expect(
      check({
        ...base,
        concurrency: { maximum: { events: 1, interruption: 2.5, provisioner: 3 }, reserved: { termination: 1 } },
      }),
    ).toEqual([
      'c.yaml: clusters[0] (demo): concurrency.maximum.provisioner: unknown field (known: events, interruption, termination)',
      'c.yaml: clusters[0] (demo): concurrency.maximum.events: expected a whole number from 2 to 1000, got number 1',
      'c.yaml: clusters[0] (demo): concurrency.maximum.interruption: expected a whole number from 2 to 1000, got number 2.5',
      'c.yaml: clusters[0] (demo): concurrency.reserved.termination: 1 is below concurrency.maximum.termination (2): Lambda would throttle its event source; reserve 0 or at least 2',
    ]);
  });
});
