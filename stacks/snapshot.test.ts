import { describe, expect, it } from 'vitest';
import { synthCluster } from './testing/synth';

/** Asset hashes change with every edit of any bundled source; the snapshot is about the infrastructure. */
function withoutAssetHashes(template: unknown): unknown {
  return JSON.parse(JSON.stringify(template).replace(/[0-9a-f]{64}(\.zip|\.json)?/g, '<asset-hash>'));
}

describe('ClusterStack snapshot', () => {
  it('matches the recorded template (asset hashes ignored)', () => {
    const { template } = synthCluster();
    expect(withoutAssetHashes(template.toJSON())).toMatchSnapshot();
  });

  it('ignores asset hashes and nothing else', () => {
    const hash = 'a'.repeat(64);
    expect(withoutAssetHashes({ S3Key: `${hash}.zip`, Name: 'karpless-demo' })).toEqual({
      S3Key: '<asset-hash>',
      Name: 'karpless-demo',
    });
  });
});
