// Reads one input file for the CLI with every failure as one line that names the file and what was expected
// (docs/api.md, "Input limits"): a missing path, a folder, binary data and a file over the size cap are refused before
// any parsing. A named pipe or device is read as a stream up to the same cap, so `/dev/zero` is refused instead of
// filling memory; a named pipe with no writer yet gets a line saying what the command waits for, never silence.
import { open, stat } from 'node:fs/promises';
import { ValidationError } from '../errors';
import { mib } from './limits';

export interface InputFileOptions {
  /** What the file should hold, for the messages: "a catalog JSON file", "YAML manifests". */
  expected: string;
  /** Bytes the file may hold. */
  maxBytes: number;
  /** Called once when a named pipe has had no writer for `waitNoticeMs`; the CLI prints it on stderr. */
  onWait?: (line: string) => void;
  waitNoticeMs?: number;
}

const WAIT_NOTICE_MS = 1000;

/** The file's text; throws ValidationError with one line naming the file. */
export async function readInputFile(path: string, opts: InputFileOptions): Promise<string> {
  const info = await stat(path).catch((err: NodeJS.ErrnoException) => {
    throw refuse(path, err.code === 'ENOENT' ? 'no such file' : `cannot read (${err.code ?? err.message})`, opts);
  });
  if (info.isDirectory()) throw refuse(path, 'is a folder', opts);
  if (info.isFile() && info.size > opts.maxBytes) {
    throw refuse(path, `${mib(info.size)} is more than the limit of ${mib(opts.maxBytes)} per file`, opts);
  }
  const bytes = info.isFile() ? await readAll(path, info.size, opts) : await readStream(path, info.isFIFO(), opts);
  return decodeText(path, bytes, opts);
}

/** The bytes as UTF-8 text; a NUL byte marks binary data (as git decides), which no YAML or JSON input holds. */
export function decodeText(path: string, bytes: Buffer, opts: Pick<InputFileOptions, 'expected'>): string {
  if (bytes.subarray(0, 8192).includes(0)) throw refuse(path, 'holds binary data, not text', opts);
  return bytes.toString('utf8');
}

/** `text` itself, or a refusal when its start holds a NUL character (binary data read as text). */
export function checkText(path: string, text: string, opts: Pick<InputFileOptions, 'expected'>): string {
  if (text.slice(0, 8192).includes('\0')) throw refuse(path, 'holds binary data, not text', opts);
  return text;
}

/** One line: `<file>: <problem>; expected <what>`. */
export function refuse(path: string, problem: string, opts: Pick<InputFileOptions, 'expected'>): ValidationError {
  return new ValidationError([`${path}: ${problem}; expected ${opts.expected}`]);
}

async function readAll(path: string, size: number, opts: InputFileOptions): Promise<Buffer> {
  const handle = await open(path, 'r').catch((err: NodeJS.ErrnoException) => {
    throw refuse(path, `cannot read (${err.code ?? err.message})`, opts);
  });
  try {
    return await readCapped(path, handle, opts, size);
  } finally {
    await handle.close();
  }
}

/** A pipe or device: opened (waiting for a writer, and saying so), then read up to the cap. */
async function readStream(path: string, fifo: boolean, opts: InputFileOptions): Promise<Buffer> {
  const notice = fifo
    ? setTimeout(
        () => opts.onWait?.(`${path}: a named pipe with no writer yet; waiting for one (Ctrl-C to stop)`),
        opts.waitNoticeMs ?? WAIT_NOTICE_MS,
      )
    : undefined;
  const handle = await open(path, 'r')
    .catch((err: NodeJS.ErrnoException) => {
      throw refuse(path, `cannot read (${err.code ?? err.message})`, opts);
    })
    .finally(() => clearTimeout(notice));
  try {
    return await readCapped(path, handle, opts, 64 * 1024);
  } finally {
    await handle.close();
  }
}

type Handle = Awaited<ReturnType<typeof open>>;

/** Reads to the end, refusing as soon as more than `maxBytes` arrived. */
async function readCapped(path: string, handle: Handle, opts: InputFileOptions, sizeHint: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.max(64 * 1024, Math.min(sizeHint + 1 - total, opts.maxBytes + 1 - total)));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    total += bytesRead;
    if (total > opts.maxBytes) throw refuse(path, `more than the limit of ${mib(opts.maxBytes)} per file`, opts);
    chunks.push(chunk.subarray(0, bytesRead));
  }
  return Buffer.concat(chunks, total);
}
