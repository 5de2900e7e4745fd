// MIME multipart user data, the way cloud-init and nodeadm read it: parse a user's archive into parts, and write
// parts back out with a fixed boundary so the same input always gives byte-identical output (and launch template).
export interface MimePart {
  contentType: string;
  content: string;
}

export const CONTENT_TYPE_NODECONFIG = 'application/node.eks.aws';
export const CONTENT_TYPE_SHELL = 'text/x-shellscript; charset="us-ascii"';
const BOUNDARY = '//';

export function isMime(userData: string): boolean {
  const head = userData.trimStart();
  return head.startsWith('MIME-Version:') || head.startsWith('Content-Type:');
}

function headers(block: string): Map<string, string> {
  const out = new Map<string, string>();
  // Folded header lines (continuations start with whitespace) join the previous header.
  const lines = block.split(/\r?\n/).reduce<string[]>((acc, line) => {
    if (/^\s/.test(line) && acc.length > 0) acc[acc.length - 1] += ` ${line.trim()}`;
    else acc.push(line);
    return acc;
  }, []);
  for (const line of lines) {
    const i = line.indexOf(':');
    if (i > 0) out.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  return out;
}

/** Splits a MIME multipart archive into its parts. Throws with a clear message on a malformed archive. */
export function parseMime(userData: string): MimePart[] {
  const text = userData.replace(/\r\n/g, '\n');
  const split = text.indexOf('\n\n');
  if (split < 0) throw new Error('userData: MIME archive has no blank line after its headers');
  const top = headers(text.slice(0, split));
  const ct = top.get('content-type') ?? '';
  const m = /boundary="?([^";]+)"?/i.exec(ct);
  if (!/^multipart\//i.test(ct) || !m?.[1]) {
    throw new Error(`userData: expected a multipart Content-Type with a boundary, got "${ct}"`);
  }
  const boundary = `--${m[1]}`;
  // Everything after the closing boundary is epilogue; everything before the first boundary is preamble.
  let body = text.slice(split + 2);
  const closing = new RegExp(`^${escapeRegExp(boundary)}--[ \\t]*$`, 'm').exec(body);
  if (closing) body = body.slice(0, closing.index);
  const parts: MimePart[] = [];
  const chunks = body.split(new RegExp(`^${escapeRegExp(boundary)}[ \\t]*$`, 'm')).slice(1);
  for (const chunk of chunks) {
    const c = chunk.replace(/^\n/, '');
    if (c.trim() === '') continue;
    const sep = c.indexOf('\n\n');
    if (sep < 0) throw new Error('userData: a MIME part has no blank line after its headers');
    const h = headers(c.slice(0, sep));
    const contentType = h.get('content-type');
    if (!contentType) throw new Error('userData: a MIME part has no Content-Type header');
    parts.push({ contentType, content: c.slice(sep + 2).replace(/\n+$/, '') });
  }
  return parts;
}

export function serializeMime(parts: MimePart[]): string {
  const out = ['MIME-Version: 1.0', `Content-Type: multipart/mixed; boundary="${BOUNDARY}"`, ''];
  for (const p of parts) {
    out.push(`--${BOUNDARY}`, `Content-Type: ${p.contentType}`, '', p.content.replace(/\n$/, ''), '');
  }
  out.push(`--${BOUNDARY}--`, '');
  return out.join('\n');
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
