import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { NODE_IMAGE } from '../forwarder/manifests';
import { imageNode, imageNodeVersion } from './image-node';

describe('the Node.js release the forwarder image runs', () => {
  it('is read from an exact image tag, and a floating tag is refused', () => {
    expect(imageNodeVersion('public.ecr.aws/docker/library/node:22.12.0-alpine')).toBe('22.12.0');
    expect(imageNodeVersion('node:24.1.0')).toBe('24.1.0');
    expect(() => imageNodeVersion('node:22-alpine')).toThrow(/names no exact Node.js release/);
  });

  it("is the binary tests run the forwarder on, at NODE_IMAGE's release", { timeout: 180_000 }, () => {
    const version = execFileSync(imageNode(), ['--version'], { encoding: 'utf8' }).trim();
    expect(version).toBe(`v${imageNodeVersion(NODE_IMAGE)}`);
  });
});
