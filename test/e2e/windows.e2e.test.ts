// A Windows pod through the real handlers: the forwarder reports it pending, the provisioner's pass launches a
// Windows Server 2022 node from the Windows pool at the licence-included price, and the pod runs there
// (docs/api.md, Windows). The launch template and userData of the same path against moto are in
// test/aws-emulator/launch.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalPipeline } from '../../local';
import { withNodeClassDefaults } from '../../shared/api/defaults';
import { LabelOS, LabelWindowsBuild } from '../../shared/api/labels';
import { loadCatalog } from '../../shared/catalog';
import { makePod, testNodeClass, testNodePool } from '../../testkit/bed';
import { ec2NodeClass } from '../../testkit/builders';
import { MINUTE } from '../../testkit/repair';
import { allBound, pipeline } from './helpers';

let p: LocalPipeline | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

describe('local pipeline: Windows', () => {
  it('launches a Windows Server 2022 node for a Windows pod, priced with the licence, and a Linux node for a Linux pod', async () => {
    const windowsPool = testNodePool('windows', [
      { key: LabelOS, operator: 'In', values: ['windows'] },
      { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large', 'm5.xlarge'] },
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
    ]);
    windowsPool.spec.template.spec.nodeClassRef.name = 'windows';
    const windowsClass = withNodeClassDefaults(
      ec2NodeClass({ amiSelectorTerms: [{ alias: 'windows2022@latest' }] }, 'windows', 'test'),
    );
    const iis = makePod('iis-0', { cpu: '1', memory: '2Gi' });
    iis.spec.nodeSelector = { [LabelOS]: 'windows' };
    p = await pipeline({
      objects: [testNodePool(), testNodeClass(), windowsPool, windowsClass, iis, makePod('web-0', { cpu: '1' })],
    });
    const pipe = p;
    expect(await pipe.runUntil(allBound(pipe), 5 * MINUTE)).toBe(true);
    const claims = await pipe.store.list({ states: ['Initialized'] });
    const byPool = Object.fromEntries(claims.map((c) => [c.nodePool, c]));
    expect(Object.keys(byPool).sort()).toEqual(['default', 'windows']);
    const win = byPool.windows;
    const node = pipe.sim.getNode(win?.nodeName ?? '');
    expect(node?.metadata.labels).toMatchObject({ [LabelOS]: 'windows', [LabelWindowsBuild]: '10.0.20348' });
    const info = loadCatalog().types.find((t) => t.name === win?.instanceType);
    expect(win?.pricePerHour).toBe(info?.windows?.onDemandPrice);
    expect(win?.pricePerHour).toBeGreaterThan(info?.onDemandPrice ?? Infinity);
    const pods = await pipe.sim.listPods();
    expect(pods.find((x) => x.metadata.name === 'iis-0')?.spec.nodeName).toBe(win?.nodeName);
    expect(pods.find((x) => x.metadata.name === 'web-0')?.spec.nodeName).toBe(byPool.default?.nodeName);
    expect(pipe.sim.getNode(byPool.default?.nodeName ?? '')?.metadata.labels?.[LabelOS]).toBe('linux');
    expect(pipe.invocations.every((i) => i.failed === 0)).toBe(true);
  });
});
