import { describe, expect, it } from 'vitest';
import { isMime, parseMime, serializeMime } from './mime';

describe('MIME user data', () => {
  it('parses CRLF archives with a preamble, folded headers and an epilogue', () => {
    const text = [
      'Content-Type: multipart/mixed;',
      ' boundary="==B=="',
      'MIME-Version: 1.0',
      '',
      'preamble text',
      '--==B==',
      'Content-Type: text/x-shellscript',
      '',
      'echo one',
      '--==B==',
      'Content-Type: text/cloud-config',
      '',
      '#cloud-config',
      'runcmd: []',
      '--==B==--',
      'epilogue',
    ].join('\r\n');
    expect(isMime(text)).toBe(true);
    expect(parseMime(text)).toEqual([
      { contentType: 'text/x-shellscript', content: 'echo one' },
      { contentType: 'text/cloud-config', content: '#cloud-config\nruncmd: []' },
    ]);
  });

  it('round-trips what it writes', () => {
    const parts = [
      { contentType: 'text/x-shellscript; charset="us-ascii"', content: '#!/bin/bash\necho hi' },
      { contentType: 'application/node.eks.aws', content: 'kind: NodeConfig' },
    ];
    expect(parseMime(serializeMime(parts))).toEqual(parts);
  });

  it('names what is wrong with a malformed archive', () => {
    expect(() => parseMime('MIME-Version: 1.0')).toThrow(/no blank line after its headers/);
    expect(() => parseMime('Content-Type: multipart/mixed; boundary="b"\n\n--b\nX-Other: 1\n\nbody\n--b--')).toThrow(
      /has no Content-Type header/,
    );
    expect(isMime('#!/bin/bash')).toBe(false);
  });
});
