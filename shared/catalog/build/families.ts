// The family table: one row per EC2 instance family in the embedded snapshot, kept by family group in families/
// (hand-transcribed data: sizes, on-demand prices, memory ratios, ENI and bandwidth figures). Provenance is in
// docs/catalog.md.
import { ACCELERATED } from './families/accelerated';
import { BURSTABLE } from './families/burstable';
import { COMPUTE_OPTIMIZED } from './families/compute';
import { GENERAL_PURPOSE } from './families/general';
import { MEMORY_OPTIMIZED } from './families/memory';
import type { FamilySpec } from './families/spec';
import { STORAGE_OPTIMIZED } from './families/storage';

export type { FamilySpec } from './families/spec';

export const FAMILIES: FamilySpec[] = [
  ...GENERAL_PURPOSE,
  ...COMPUTE_OPTIMIZED,
  ...MEMORY_OPTIMIZED,
  ...BURSTABLE,
  ...STORAGE_OPTIMIZED,
  ...ACCELERATED,
];
