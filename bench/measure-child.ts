// Child-process entry for the measures of `npm run bench` (bench/measures.ts): runs one and prints it as one JSON
// line. Usage: node --import tsx bench/measure-child.ts MEASURE
import { loadavg } from 'node:os';
import { findMeasure } from './measures';

const name = process.argv[2];
const measure = name ? findMeasure(name) : undefined;
if (!measure) {
  process.stderr.write(`unknown measure ${String(name)}\n`);
  process.exitCode = 2;
} else {
  const measured = await measure.run();
  const loadAverage = loadavg().map((l) => Math.round(l * 100) / 100);
  process.stdout.write(`${JSON.stringify({ ...measured, loadAverage })}\n`);
}
