// Wall and CPU time of one measure's work, apart from the list of measures so that each measure can import it
// without an import cycle through that list (bench/measures.ts).

/** Runs `work` and returns its result with the wall and CPU milliseconds it took in this process. */
export async function timed<T>(work: () => Promise<T>): Promise<{ result: T; wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await work();
  const used = process.cpuUsage(cpu);
  return { result, wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}
