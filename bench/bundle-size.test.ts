import { describe, expect, it } from 'vitest';
import { type BundleFigures, meetsImportTarget, meetsSizeTarget } from './bundle-size';

const figures = (sdkKiB: number, restKiB: number, coldImportMs: number): BundleFigures => ({
  name: 'provisioner',
  bundleBytes: (sdkKiB + restKiB) * 1024,
  sdkBytes: sdkKiB * 1024,
  restBytes: restKiB * 1024,
  deflatedBytes: 0,
  assetBytes: 0,
  coldImportMs,
  coldImportRangeMs: [coldImportMs, coldImportMs],
  top: [],
});

describe('bundle targets', () => {
  it('holds the function’s own code to 600 KiB, the AWS SDK it bundles counted apart', () => {
    expect(meetsSizeTarget(figures(441, 439, 110))).toBe(true);
    expect(meetsSizeTarget(figures(0, 600, 110))).toBe(true);
    expect(meetsSizeTarget(figures(0, 601, 110))).toBe(false);
  });

  it('holds the cold import to 200 ms', () => {
    expect(meetsImportTarget(figures(441, 439, 200))).toBe(true);
    expect(meetsImportTarget(figures(441, 439, 201))).toBe(false);
  });
});
