// Bundled beside a function by stacks/bundle.test.ts: solves a tiny LP and loads the embedded catalog, the two
// things that read files at run time, so the test proves a bundle directory holds what they need.
import { embeddedSnapshot } from '../../shared/catalog/load';
import { solveCoveringLp } from '../../shared/scheduling/lp';

const lp = solveCoveringLp(
  [10, 15],
  [
    { price: 1, supply: [2, 1] },
    { price: 2, supply: [1, 3] },
  ],
);
console.log(JSON.stringify({ lpCost: lp.cost, instanceTypes: embeddedSnapshot().types.length }));
