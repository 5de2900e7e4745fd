// Finds, installs when missing, and starts moto_server, the AWS emulator the emulator-backed suites run against
// (README "Tests against an AWS emulator"). Lookup order: moto_server on PATH, then the virtual environment this
// module installed before in the cache folder, then a new virtual environment with the pinned moto. Without
// Python 3 it fails with one line saying what to install: the suites never skip.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

/** The moto the suites are written against; a cached environment of another version is not reused. */
export const MOTO_VERSION = '5.2.1';
export const MOTO_REQUIREMENT = `moto[server]==${MOTO_VERSION}`;
/** moto 5.2 needs Python 3.9 or later. */
const MIN_PYTHON: readonly [number, number] = [3, 9];

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** What locating and installing touch: the PATH, the file system and child processes. Tests fake all three. */
export interface MotoHost {
  /** The absolute path of `command` on PATH, or undefined. */
  which(command: string): string | undefined;
  exists(path: string): boolean;
  run(command: string, args: string[]): CommandResult;
  /** Progress lines (the install takes a minute); stderr by default. */
  log(line: string): void;
}

export function systemHost(env: NodeJS.ProcessEnv = process.env): MotoHost {
  return {
    which: (command) => {
      for (const dir of (env.PATH ?? '').split(delimiter)) {
        if (!dir) continue;
        const candidate = join(dir, command);
        if (existsSync(candidate)) return candidate;
      }
      return undefined;
    },
    exists: existsSync,
    run: (command, args) => {
      const r = spawnSync(command, args, { encoding: 'utf8', env });
      return { code: r.status ?? 1, stdout: r.stdout ?? '', stderr: r.stderr ?? (r.error ? String(r.error) : '') };
    },
    log: (line) => process.stderr.write(`${line}\n`),
  };
}

/** Where the virtual environment lives: $KARPLESS_CACHE_DIR, else $XDG_CACHE_HOME/karpless, else ~/.cache/karpless. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.KARPLESS_CACHE_DIR) return env.KARPLESS_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'karpless');
}

export const venvDir = (cache: string) => join(cache, `moto-${MOTO_VERSION}`);
const venvBin = (venv: string, command: string) => join(venv, 'bin', command);

export class MotoSetupError extends Error {
  override name = 'MotoSetupError';
}

const NO_PYTHON =
  `moto_server is not on PATH and no Python ${MIN_PYTHON.join('.')}+ was found to install it: install Python 3 ` +
  `with its venv module (e.g. apt-get install python3 python3-venv), or install "${MOTO_REQUIREMENT}" yourself`;

/** A Python 3 interpreter new enough for moto, or undefined. */
export function findPython(host: MotoHost): string | undefined {
  for (const name of ['python3', 'python']) {
    const path = host.which(name);
    if (!path) continue;
    const r = host.run(path, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])']);
    const m = /^(\d+)\.(\d+)/.exec(r.stdout.trim());
    if (r.code !== 0 || !m) continue;
    const [major, minor] = [Number(m[1]), Number(m[2])];
    if (major > MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor >= MIN_PYTHON[1])) return path;
  }
  return undefined;
}

const lastLine = (r: CommandResult) =>
  (r.stderr.trim() || r.stdout.trim()).split('\n').filter(Boolean).at(-1) ?? `exit code ${r.code}`;

/**
 * The moto_server command to run: on PATH, else cached, else installed now into a virtual environment under
 * `cache`. Throws MotoSetupError with a one-line message when it cannot.
 */
export function locateMotoServer(host: MotoHost, cache: string): string {
  const onPath = host.which('moto_server');
  if (onPath) return onPath;
  const venv = venvDir(cache);
  const cached = venvBin(venv, 'moto_server');
  if (host.exists(cached)) return cached;
  const python = findPython(host);
  if (!python) throw new MotoSetupError(NO_PYTHON);
  host.log(`moto_server is not on PATH: installing ${MOTO_REQUIREMENT} into ${venv} (once)`);
  const created = host.run(python, ['-m', 'venv', venv]);
  if (created.code !== 0) {
    throw new MotoSetupError(
      `could not create a Python virtual environment in ${venv} (${lastLine(created)}): install python3-venv`,
    );
  }
  const installed = host.run(venvBin(venv, 'pip'), [
    'install',
    '--disable-pip-version-check',
    '--quiet',
    MOTO_REQUIREMENT,
  ]);
  if (installed.code !== 0) {
    throw new MotoSetupError(
      `pip install "${MOTO_REQUIREMENT}" into ${venv} failed (${lastLine(installed)}): check access to PyPI, or install it yourself`,
    );
  }
  if (!host.exists(cached)) {
    throw new MotoSetupError(`pip installed ${MOTO_REQUIREMENT} into ${venv} but ${cached} is missing`);
  }
  return cached;
}

export interface RunningMoto {
  endpoint: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts moto_server on a free loopback port and resolves once it prints the address it listens on. */
export function startMotoServer(command: string, timeoutMs = 60_000): Promise<RunningMoto> {
  const child = spawn(command, ['-H', '127.0.0.1', '-p', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const fail = (message: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new MotoSetupError(message));
    };
    const timer = setTimeout(
      () => fail(`${command} printed no address within ${timeoutMs / 1000} s: ${output.trim().slice(-300)}`),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /Running on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (!m?.[1]) return;
      clearTimeout(timer);
      child.stdout?.removeAllListeners('data');
      child.stderr?.removeAllListeners('data');
      child.removeAllListeners('exit');
      // Keep draining the request log so a full pipe never blocks the server.
      child.stdout?.resume();
      child.stderr?.resume();
      resolve({ endpoint: m[1], process: child, stop: () => stopChild(child) });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', (err) => fail(`could not run ${command}: ${err.message}`));
    child.once('exit', (code) => fail(`${command} exited with code ${code} before listening: ${output.trim()}`));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
