// How hard the fuzz suite tries: a few hundred cases inside `npm test`, many more with `npm run fuzz`
// (KARPLESS_FUZZ_RUNS), which also fixes a seed per run so a failure can be replayed.
export const FUZZ_RUNS = Number(process.env.KARPLESS_FUZZ_RUNS ?? 150);
export const FUZZ_SEED = process.env.KARPLESS_FUZZ_SEED ? Number(process.env.KARPLESS_FUZZ_SEED) : undefined;
