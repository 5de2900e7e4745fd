import { describe, expect, it } from 'vitest';
import { noScenarioFiles as noFiles, scenarioProblems as problems } from '../../../testkit/scenario';
import { SimAccount } from '../sim-account';
import { applyCloudStep } from './cloud-steps';
import { parseScenario } from './parse';

const scenario = (steps: string): string => `apiVersion: karpless.dev/v1alpha1
kind: Scenario
metadata: { name: test }
spec:
  until: 1h
  steps:
${steps}`;

describe('cloud steps in a scenario', () => {
  it('reads publishAmi, retag and kubernetesVersion', async () => {
    const s = await parseScenario(
      scenario(`    - at: 1m
      publishAmi: { alias: al2023@v20260110, id: ami-0abc, arch: arm64 }
    - at: 2m
      retag: { subnet: subnet-us-east-1a, tags: { Name: legacy } }
    - at: 3m
      retag: { securityGroup: sg-0new, tags: { karpenter.sh/discovery: demo } }
    - at: 4m
      kubernetesVersion: "1.32"`),
      'scen.yaml',
      noFiles,
    );
    expect(s.steps.map((x) => x.action)).toEqual([
      { type: 'publishAmi', family: 'al2023', version: 'v20260110', id: 'ami-0abc', arch: 'arm64' },
      { type: 'retag', kind: 'subnet', id: 'subnet-us-east-1a', tags: { Name: 'legacy' } },
      { type: 'retag', kind: 'securityGroup', id: 'sg-0new', tags: { 'karpenter.sh/discovery': 'demo' } },
      { type: 'kubernetesVersion', version: '1.32' },
    ]);
  });

  it('names the field path of every bad cloud step', async () => {
    const errors = await problems(
      scenario(`    - at: 1m
      publishAmi: { alias: al2023@latest }
    - at: 2m
      publishAmi: { alias: ubuntu@v1, extra: 1 }
    - at: 3m
      retag: { subnet: subnet-0abc, tags: { Name: x } }
    - at: 4m
      retag: { subnet: subnet-us-east-1a, securityGroup: sg-1, tags: {} }
    - at: 5m
      retag: { securityGroup: sg-1, tags: { a: 1 } }
    - at: 6m
      kubernetesVersion: 1.3x
    - at: 7m
      publishAmi: { alias: al2023@v1, arch: x86_64 }`),
    );
    const at = (i: number, rest: string) => errors.find((e) => e.includes(`spec.steps[${i}].${rest}`));
    expect(at(0, 'publishAmi.alias')).toMatch(/not @latest/);
    expect(at(1, 'publishAmi.extra')).toMatch(/unknown field/);
    expect(at(1, 'publishAmi.alias')).toMatch(/family one of al2023/);
    expect(at(2, 'retag.zone')).toMatch(/required: subnet-0abc is not a default/);
    expect(at(3, 'retag')).toMatch(/exactly one of subnet or securityGroup/);
    expect(at(4, 'retag.tags.a')).toMatch(/must be a string/);
    expect(at(5, 'kubernetesVersion')).toMatch(/Kubernetes minor version/);
    expect(at(6, 'publishAmi.arch')).toMatch(/must be amd64 or arm64, got "?x86_64/);
  });
});

describe('SimAccount', () => {
  const cls = (alias: string) =>
    ({
      spec: {
        amiSelectorTerms: [{ alias }],
        subnetSelectorTerms: [{ tags: { team: 'a' } }],
        securityGroupSelectorTerms: [{ tags: { team: 'a' } }],
      },
    }) as never;

  it('resolves an alias to the newest release for the cluster version', () => {
    const account = new SimAccount();
    const before = account.aliasImage(cls('al2023@latest'));
    applyCloudStep(account, { type: 'publishAmi', family: 'al2023', version: 'v2', id: 'ami-2' });
    expect(account.aliasImage(cls('al2023@latest'))).toBe('ami-2');
    expect(account.aliasImage(cls('al2023@latest'))).not.toBe(before);
    applyCloudStep(account, { type: 'kubernetesVersion', version: '1.40' });
    expect(account.aliasImage(cls('al2023@latest'))).not.toBe('ami-2');
    expect(account.aliasImage({ spec: { amiSelectorTerms: [{ id: 'ami-1' }] } } as never)).toBeUndefined();
  });

  it('finds subnet and security-group drift from tags', () => {
    const account = new SimAccount();
    const placed = { subnetId: 'subnet-us-east-1a', securityGroupIds: ['sg-sim'] };
    expect(account.networkDrift(placed, cls('al2023@latest'))).toBeUndefined();
    account.retag('subnet', 'subnet-us-east-1a', { team: 'b' });
    expect(account.networkDrift(placed, cls('al2023@latest'))).toMatch(/^SubnetDrift/);
    expect(account.subnetFor(cls('al2023@latest'), 'us-east-1a')).toBeUndefined();
    account.retag('subnet', 'subnet-us-east-1a', { team: 'a' });
    account.retag('securityGroup', 'sg-new', { team: 'a' });
    expect(account.networkDrift(placed, cls('al2023@latest'))).toMatch(/^SecurityGroupDrift/);
    expect(() => account.retag('subnet', 'subnet-0x', {})).toThrow(/give its zone/);
  });

  it('resolves an alias per architecture: a release for one leaves the other', () => {
    const account = new SimAccount();
    const amd = account.aliasImage(cls('al2023@latest'), 'amd64');
    applyCloudStep(account, { type: 'publishAmi', family: 'al2023', version: 'v2', id: 'ami-arm2', arch: 'arm64' });
    expect(account.imagesFor(cls('al2023@latest'))).toEqual([
      { id: amd, arch: 'amd64' },
      { id: 'ami-arm2', arch: 'arm64' },
    ]);
  });

  it('resolves id terms to their images, a published one for its architecture only', () => {
    const account = new SimAccount();
    account.publishAmi({ family: 'al2023', version: 'v2', id: 'ami-amd2' });
    const ids = (...terms: { id: string }[]) => ({ spec: { amiSelectorTerms: terms } }) as never;
    expect(account.imagesFor(ids({ id: 'ami-amd2' }))).toEqual([{ id: 'ami-amd2', arch: 'amd64' }]);
    expect(account.imagesFor(ids({ id: 'ami-unknown' }))).toEqual([
      { id: 'ami-unknown', arch: 'amd64' },
      { id: 'ami-unknown', arch: 'arm64' },
    ]);
    expect(account.imagesFor(ids({ id: 'ami-amd2' }, { id: 'ami-other' }))).toEqual([
      { id: 'ami-amd2', arch: 'amd64' },
      { id: 'ami-other', arch: 'arm64' },
    ]);
  });

  it('selects security groups as the AWS adapter does: ids, names and tags, every field of a term', () => {
    const account = new SimAccount();
    account.retag('securityGroup', 'sg-web', { Name: 'web', team: 'a', tier: 'web-1' });
    const groups = (...terms: Record<string, unknown>[]) =>
      account.securityGroupsFor({ spec: { securityGroupSelectorTerms: terms } } as never);
    // The untagged default group stands for the cluster's discovery-tagged group: any tags select it, but an id or
    // a name selects only the group it names.
    expect(groups({ tags: { 'karpenter.sh/discovery': 'x' } })).toEqual(['sg-sim']);
    expect(groups({ id: 'sg-web' })).toEqual(['sg-web']);
    expect(groups({ name: 'web' })).toEqual(['sg-web']);
    expect(groups({ name: 'sg-sim' })).toEqual(['sg-sim']);
    expect(groups({ tags: { tier: 'web-?' } })).toEqual(['sg-sim', 'sg-web']);
    expect(groups({ id: 'sg-web', tags: { team: 'b' } })).toEqual([]);
    expect(groups({ id: 'sg-web' }, { id: 'sg-sim' })).toEqual(['sg-sim', 'sg-web']);
    expect(groups({ id: 'sg-elsewhere' })).toEqual([]);
    expect(groups({})).toEqual([]);
    account.retag('securityGroup', 'sg-sim', { team: 'a' });
    expect(groups({ tags: { team: 'a', tier: '*' } })).toEqual(['sg-web']);
  });
});
