import { describe, expect, it } from 'vitest';
import { amiDrift } from './drift-ami';
import type { ResolvedAmi } from './images';

const AMD = { arch: 'amd64' } as const;
const ARM = { arch: 'arm64' } as const;
const GPU = { arch: 'amd64', gpu: { manufacturer: 'nvidia', name: 't4', count: 1, memoryMiB: 16_384 } } as const;

const amis: ResolvedAmi[] = [
  { id: 'ami-amd', arch: 'amd64', variant: 'standard' },
  { id: 'ami-amd-gpu', arch: 'amd64', variant: 'nvidia' },
  { id: 'ami-arm', arch: 'arm64', variant: 'standard' },
];

const drift = (imageId: string | undefined, info: Parameters<typeof amiDrift>[0]['info'], images = amis) =>
  amiDrift({ imageId, instanceType: 'x.large', info, amis: images });

describe('amiDrift', () => {
  it('keeps a node on the image its instance type boots', () => {
    expect(drift('ami-amd', AMD)).toBeUndefined();
    expect(drift('ami-arm', ARM)).toBeUndefined();
    expect(drift('ami-amd-gpu', GPU)).toBeUndefined();
  });

  it('drifts a node on an image the class still resolves for another architecture or variant', () => {
    expect(drift('ami-amd', ARM)).toBe(
      'AMIDrift: instance runs ami-amd, EC2NodeClass resolves to ami-arm for x.large (arm64)',
    );
    expect(drift('ami-arm', AMD)).toMatch(/resolves to ami-amd for x\.large \(amd64\)$/);
    expect(drift('ami-amd', GPU)).toMatch(/resolves to ami-amd-gpu for/);
  });

  it('drifts a node whose architecture the class has no image for any more', () => {
    const amdOnly = amis.filter((a) => a.arch === 'amd64');
    expect(drift('ami-arm', ARM, amdOnly)).toBe(
      'AMIDrift: instance runs ami-arm, EC2NodeClass resolves to no image (of ami-amd, ami-amd-gpu) for x.large (arm64)',
    );
  });

  it('serves every type of an architecture from a generic image (chosen by id, name or tags)', () => {
    const generic: ResolvedAmi[] = [{ id: 'ami-custom', arch: 'amd64' }];
    expect(drift('ami-custom', GPU, generic)).toBeUndefined();
    expect(drift('ami-amd', AMD, generic)).toMatch(/resolves to ami-custom/);
  });

  it('compares against every image when the instance type is no longer known', () => {
    expect(drift('ami-arm', undefined)).toBeUndefined();
    expect(drift('ami-gone', undefined)).toBe(
      'AMIDrift: instance runs ami-gone, EC2NodeClass resolves to ami-amd, ami-amd-gpu, ami-arm',
    );
  });

  it('never drifts without an image to compare or with nothing resolved (broken discovery)', () => {
    expect(drift(undefined, AMD)).toBeUndefined();
    expect(drift('ami-amd', AMD, [])).toBeUndefined();
  });
});
