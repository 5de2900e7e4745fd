// Pins what `karpless simulate -f` plans for every example it accepts: which pods share a NodeClaim, and each
// claim's NodePool, instance type, capacity type, zone and price, the unschedulable pods with their reasons, and the
// cost. Recorded before simulate -f moved onto the provisioning use-case (issue 18); a change here is a change of
// plan, to be explained, not re-recorded.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bufferIO } from '../io';
import { main } from '../main';
import pinned from './simulate-plans.pin.json';

const ROOT = join(import.meta.dirname, '../..');
const MANIFESTS = 'examples/scenarios/manifests';

/** Each pinned input and the files simulate -f is given for it. */
const INPUTS: Record<string, string[]> = {
  'examples/cluster': ['examples/cluster'],
  ...Object.fromEntries(
    ['daemonset', 'database', 'gpu-job', 'nodepools', 'web'].map((f) => {
      const path = `examples/cluster/${f}.yaml`;
      return [path, [path]];
    }),
  ),
  ...Object.fromEntries(
    ['api', 'nodepool', 'spot-nodepool', 'web'].map((f) => {
      const path = `${MANIFESTS}/${f}.yaml`;
      return [path, [path]];
    }),
  ),
  [`${MANIFESTS}/{nodepool,web,api}.yaml`]: ['nodepool', 'web', 'api'].map((f) => `${MANIFESTS}/${f}.yaml`),
  [`${MANIFESTS}/{spot-nodepool,web,api}.yaml`]: ['spot-nodepool', 'web', 'api'].map((f) => `${MANIFESTS}/${f}.yaml`),
};

interface ReportClaim {
  nodePool: string;
  instanceType: string;
  capacityType: string;
  zone: string;
  pricePerHour: number;
  pods: string[];
}

interface Report {
  nodeClaims: ReportClaim[];
  unschedulable: { pod: string; reason: string }[];
  summary: { pods: number; scheduledPods: number; costPerHour: number; lowerBoundPerHour: number };
}

/** The plan in a report, in an order that does not depend on claim names. */
function planOf(report: Report) {
  const claims = report.nodeClaims
    .map((c) => ({
      nodePool: c.nodePool,
      instanceType: c.instanceType,
      capacityType: c.capacityType,
      zone: c.zone,
      pricePerHour: c.pricePerHour,
      pods: [...c.pods].sort(),
    }))
    .sort((a, b) => ((a.pods[0] ?? '') < (b.pods[0] ?? '') ? -1 : 1));
  const { pods, scheduledPods, costPerHour, lowerBoundPerHour } = report.summary;
  return {
    claims,
    unschedulable: [...report.unschedulable].sort((a, b) => (a.pod < b.pod ? -1 : 1)),
    costPerHour,
    scheduledPods,
    pods,
    lowerBoundPerHour,
  };
}

describe('karpless simulate -f plans the examples as pinned', () => {
  it('pins every input it runs', () => {
    expect(Object.keys(INPUTS).sort()).toEqual(Object.keys(pinned).sort());
  });

  for (const [name, files] of Object.entries(INPUTS)) {
    it(name, async () => {
      const io = bufferIO();
      const code = await main(['simulate', ...files.flatMap((f) => ['-f', join(ROOT, f)]), '-o', 'json'], io);
      expect(code, io.stderr.join('')).toBe(0);
      const report = JSON.parse(io.stdout.join('')) as Report;
      expect(planOf(report)).toEqual(pinned[name as keyof typeof pinned]);
    });
  }
});
