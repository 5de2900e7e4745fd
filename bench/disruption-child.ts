// Child-process entry for the disruption measures of `karpless bench`: runs one and prints it as one JSON line.
// Usage: node --import tsx bench/disruption-child.ts MEASURE
import { findDisruptionMeasure } from './disruption-measures';

const name = process.argv[2];
const measure = name ? findDisruptionMeasure(name) : undefined;
if (!measure) {
  process.stderr.write(`unknown disruption measure ${String(name)}\n`);
  process.exitCode = 2;
} else {
  process.stdout.write(`${JSON.stringify(await measure.run())}\n`);
}
