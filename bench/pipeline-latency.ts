// Decision latency of the local pipeline: from a pending pod's event to the CreateFleet call for it, on warm
// handlers. The forwarder's batching window is virtual time (it is a fixed, configured wait); what is measured in
// wall-clock is everything after it: the provisioner invocation (middy, Powertools, validation, reading the cluster
// and DynamoDB (dynalite) state, the solve, the claim writes) up to the cloud's create call.
// Run: npx tsx bench/pipeline-latency.ts [--rounds 40] [--seed 1] [--json]

import { LabelArch, LabelCapacityType, LabelInstanceType, LabelOS, LabelZone } from '../shared/api/labels';
import { createRng } from '../shared/sim';
import { makePod, testNodePool } from '../testkit/bed';
import { benchPipeline } from './bench-pipeline';

export interface LatencyFigures {
  rounds: number;
  warmupRounds: number;
  pods: number;
  batches: number;
  launches: number;
  /** Per pod, wall-clock ms from the invocation start to the create call of its claim. */
  podMs: Quantiles;
  /** Per invocation that launched, wall-clock ms from its start to its last create call. */
  batchMs: Quantiles;
  /** Virtual ms from the pod's pending event to the batch's delivery (the batching window). */
  windowMs: Quantiles;
}

export interface Quantiles {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function quantiles(xs: number[]): Quantiles {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? Number.NaN;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: s.at(-1) ?? Number.NaN };
}

const CPU = ['250m', '500m', '1', '2'];

export async function measurePipelineLatency(rounds = 40, seed = 1, warmupRounds = 3): Promise<LatencyFigures> {
  const rng = createRng(seed);
  const pool = testNodePool('default', [
    { key: LabelOS, operator: 'In', values: ['linux'] },
    { key: LabelArch, operator: 'In', values: ['amd64'] },
    {
      key: LabelInstanceType,
      operator: 'In',
      values: ['m5.large', 'm5.xlarge', 'm5.2xlarge', 'c5.large', 'c5.xlarge', 'c5.2xlarge', 'r5.large', 'r5.xlarge'],
    },
    { key: LabelZone, operator: 'In', values: ['us-east-1a', 'us-east-1b', 'us-east-1c'] },
    { key: LabelCapacityType, operator: 'In', values: ['spot', 'on-demand'] },
  ]);
  const p = await benchPipeline(pool, seed);
  const podMs: number[] = [];
  const batchMs: number[] = [];
  const windowMs: number[] = [];
  let pods = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      const n = 1 + rng.int(40);
      const app = `app${round}`;
      const added = new Map<string, number>();
      for (let i = 0; i < n; i++) {
        const pod = makePod(`${app}-${i}`, { cpu: CPU[rng.int(CPU.length)] ?? '500m', memory: '1Gi' });
        p.forwarder.addPod(pod);
        added.set(`default/${pod.metadata.name}`, p.clock.now());
      }
      const createsBefore = p.cloud.creates.length;
      const done = async () => [...added.keys()].every((k) => p.sim.getPod(k)?.spec.nodeName);
      if (!(await p.runUntil(done, 10 * 60_000)))
        throw new Error(`round ${round}: pods still pending after 10 minutes`);
      if (round < warmupRounds) continue;
      const creates = p.cloud.creates.slice(createsBefore).filter((c) => c.podKeys.some((k) => added.has(k)));
      const perInvocation = new Map<number, number>();
      for (const c of creates) {
        for (const k of c.podKeys) {
          const since = added.get(k);
          if (since === undefined) continue;
          podMs.push(c.sinceInvocationMs);
          windowMs.push(c.at - since);
          pods++;
        }
        const started = c.wallAt - c.sinceInvocationMs;
        perInvocation.set(started, Math.max(perInvocation.get(started) ?? 0, c.sinceInvocationMs));
      }
      batchMs.push(...perInvocation.values());
    }
  } finally {
    await p.stop();
  }
  return {
    rounds,
    warmupRounds,
    pods,
    batches: batchMs.length,
    launches: p.cloud.creates.length,
    podMs: quantiles(podMs),
    batchMs: quantiles(batchMs),
    windowMs: quantiles(windowMs),
  };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (name: string, fallback: number) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  const f = await measurePipelineLatency(opt('--rounds', 40), opt('--seed', 1));
  if (args.includes('--json')) {
    console.log(JSON.stringify(f, null, 2));
    return;
  }
  const row = (label: string, q: Quantiles) =>
    `| ${label} | ${q.p50.toFixed(0)} | ${q.p90.toFixed(0)} | ${q.p99.toFixed(0)} | ${q.max.toFixed(0)} |`;
  console.log(
    `${f.pods} pods in ${f.batches} launching invocations over ${f.rounds - f.warmupRounds} warm rounds (${f.warmupRounds} warm-up rounds dropped), ${f.launches} launches in all`,
  );
  console.log('| measure (ms) | p50 | p90 | p99 | max |');
  console.log('|---|---|---|---|---|');
  console.log(row('pod: invocation start → CreateFleet (wall)', f.podMs));
  console.log(row('invocation: start → last CreateFleet (wall)', f.batchMs));
  console.log(row('batching window: pod event → delivery (virtual)', f.windowMs));
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
