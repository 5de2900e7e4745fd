// Child-process entry of `npm run bench`: runs the named workload and prints its measurement as one JSON line.
// Usage: node --import tsx bench/child.ts WORKLOAD [CATALOG_FILE]
import { measureWorkload } from './measure';
import { findWorkload } from './workloads';

const [name, catalogPath] = process.argv.slice(2);
const workload = name ? findWorkload(name) : undefined;
if (!workload) {
  process.stderr.write(`unknown workload ${String(name)}\n`);
  process.exitCode = 2;
} else {
  const measurement = await measureWorkload(workload, catalogPath || undefined);
  process.stdout.write(`${JSON.stringify(measurement)}\n`);
}
