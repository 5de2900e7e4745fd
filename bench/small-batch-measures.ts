// The small-batch measure of `npm run bench` (issue 13): 200 random batches of 2–60 pods (whole-cpu, mixed and
// memory-heavy; NodePools restricted by category, generation and arch), each planned by the solver and compared with
// its exact optimum, computed apart from the engine (testkit/packing-reference.ts). Target: the
// worst batch within 1.05 × its optimum.
import { defaultNodePool } from '../shared/api/default-nodepool';
import { instanceTypesFor, loadCatalog } from '../shared/catalog';
import { loadLpSolver, solve } from '../shared/scheduling';
import {
  batchObjects,
  firstFitDecreasingCost,
  optimumCost,
  referenceTypes,
  smallBatch,
} from '../testkit/packing-reference';
import type { BenchMeasure } from './measures';

const BATCHES = 200;
const TARGET = 1.05;
const SEED = 1300;

export const SMALL_BATCH_MEASURE: BenchMeasure = {
  name: 'small-batches',
  description: `${BATCHES} random batches of 2–60 pods, plan cost against the exact optimum`,
  run: async () => {
    await loadLpSolver();
    const catalog = instanceTypesFor(await loadCatalog(), defaultNodePool().nodeClass);
    let worst = 0;
    let worstLabel = '';
    let sum = 0;
    let measured = 0;
    let proven = 0;
    let ffdSum = 0;
    let solveMs = 0;
    const cpu = process.cpuUsage();
    const begun = performance.now();
    for (let i = 0; i < BATCHES; i++) {
      const batch = smallBatch(SEED + i);
      const types = referenceTypes(catalog, batch);
      const optimum = optimumCost(batch.shapes, types);
      if (!Number.isFinite(optimum) || optimum <= 0) continue;
      const { pool, pods, daemonSets } = batchObjects(batch);
      const started = performance.now();
      const r = solve({
        pods,
        nodePools: [pool],
        instanceTypes: new Map([[pool.metadata.name, catalog]]),
        daemonSets,
      });
      solveMs += performance.now() - started;
      const cost =
        r.unschedulable.length > 0 ? Number.POSITIVE_INFINITY : r.nodeClaims.reduce((s, c) => s + c.cheapest.price, 0);
      const ratio = cost / optimum;
      sum += ratio;
      ffdSum += firstFitDecreasingCost(batch.shapes, types) / optimum;
      measured++;
      if (r.stats.packing?.provenOptimal) proven++;
      if (ratio > worst) {
        worst = ratio;
        worstLabel = batch.label;
      }
    }
    const wallMs = performance.now() - begun;
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000;
    const mean = measured > 0 ? sum / measured : Number.POSITIVE_INFINITY;
    return {
      name: SMALL_BATCH_MEASURE.name,
      description: SMALL_BATCH_MEASURE.description,
      target: `worst ≤ ${TARGET} × optimum`,
      value: Math.round(worst * 1000) / 1000,
      unit: '× optimum',
      pass: measured === BATCHES && worst <= TARGET,
      wallMs,
      cpuMs,
      detail:
        `mean ${mean.toFixed(4)} × optimum over ${measured} batches (FFD mean ${(ffdSum / Math.max(1, measured)).toFixed(3)}), ` +
        `${proven} proven optimal, solves ${Math.round(solveMs)} ms in all; worst: ${worstLabel}`,
    };
  },
};
