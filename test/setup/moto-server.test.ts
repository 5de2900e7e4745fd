// Locating and installing moto_server, with the PATH, the file system and the installer faked (PyPI is not
// reachable from CI, and a test must not install anything).
import { describe, expect, it } from 'vitest';
import {
  type CommandResult,
  cacheDir,
  locateMotoServer,
  MOTO_REQUIREMENT,
  type MotoHost,
  MotoSetupError,
  startMotoServer,
  venvDir,
} from './moto-server';

interface FakeHost extends MotoHost {
  runs: string[];
  logs: string[];
}

function fakeHost(o: {
  onPath?: Record<string, string>;
  files?: string[];
  answers?: (command: string, args: string[]) => CommandResult | undefined;
}): FakeHost {
  const files = new Set(o.files ?? []);
  const host: FakeHost = {
    runs: [],
    logs: [],
    which: (command) => o.onPath?.[command],
    exists: (path) => files.has(path),
    run: (command, args) => {
      host.runs.push([command, ...args].join(' '));
      const answer = o.answers?.(command, args) ?? { code: 0, stdout: '', stderr: '' };
      // A successful pip install leaves the console script behind, as pip does.
      if (answer.code === 0 && args[0] === 'install') files.add(command.replace(/pip$/, 'moto_server'));
      return answer;
    },
    log: (line) => host.logs.push(line),
  };
  return host;
}

const python = (version: string) => (_command: string, args: string[]) =>
  args[0] === '-c' ? { code: 0, stdout: `${version}\n`, stderr: '' } : undefined;

describe('locating moto_server', () => {
  it('uses moto_server from PATH without touching Python', () => {
    const host = fakeHost({ onPath: { moto_server: '/usr/bin/moto_server', python3: '/usr/bin/python3' } });
    expect(locateMotoServer(host, '/cache')).toBe('/usr/bin/moto_server');
    expect(host.runs).toEqual([]);
  });

  it('reuses the virtual environment a previous run installed', () => {
    const cached = `${venvDir('/cache')}/bin/moto_server`;
    const host = fakeHost({ files: [cached], onPath: { python3: '/usr/bin/python3' } });
    expect(locateMotoServer(host, '/cache')).toBe(cached);
    expect(host.runs).toEqual([]);
  });

  it('creates a virtual environment in the cache and installs the pinned moto when it is missing', () => {
    const host = fakeHost({ onPath: { python3: '/usr/bin/python3' }, answers: python('3.11') });
    const venv = venvDir('/cache');
    expect(locateMotoServer(host, '/cache')).toBe(`${venv}/bin/moto_server`);
    expect(host.runs).toEqual([
      '/usr/bin/python3 -c import sys; print("%d.%d" % sys.version_info[:2])',
      `/usr/bin/python3 -m venv ${venv}`,
      `${venv}/bin/pip install --disable-pip-version-check --quiet ${MOTO_REQUIREMENT}`,
    ]);
    expect(MOTO_REQUIREMENT).toBe('moto[server]==5.2.1');
    expect(host.logs.join('\n')).toMatch(/installing moto\[server\]==5\.2\.1 into \/cache\/moto-5\.2\.1/);
  });

  it('skips a Python too old for moto and uses the next one', () => {
    const host = fakeHost({
      onPath: { python3: '/usr/bin/python3', python: '/opt/py/python' },
      answers: (command, args) =>
        args[0] === '-c' ? { code: 0, stdout: command === '/usr/bin/python3' ? '3.8' : '3.12', stderr: '' } : undefined,
    });
    locateMotoServer(host, '/cache');
    expect(host.runs[2]).toBe(`/opt/py/python -m venv ${venvDir('/cache')}`);
  });

  it('fails with one line naming what to install when there is no Python 3', () => {
    const host = fakeHost({
      onPath: { python: '/usr/bin/python' },
      answers: (_c, args) => (args[0] === '-c' ? { code: 0, stdout: '2.7', stderr: '' } : undefined),
    });
    let error: unknown;
    try {
      locateMotoServer(host, '/cache');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MotoSetupError);
    const message = (error as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toMatch(/moto_server is not on PATH and no Python 3\.9\+ was found/);
    expect(message).toMatch(/apt-get install python3 python3-venv/);
    expect(message).toContain('moto[server]==5.2.1');
  });

  it('reports a failed pip install with its last line, on one line', () => {
    const host = fakeHost({
      onPath: { python3: '/usr/bin/python3' },
      answers: (command, args) =>
        args[0] === 'install'
          ? {
              code: 1,
              stdout: '',
              stderr: 'Looking in indexes\nERROR: No matching distribution found for moto[server]==5.2.1\n',
            }
          : python('3.11')(command, args),
    });
    expect(() => locateMotoServer(host, '/cache')).toThrow(
      /^pip install "moto\[server\]==5\.2\.1" into \/cache\/moto-5\.2\.1 failed \(ERROR: No matching distribution found for moto\[server\]==5\.2\.1\): check access to PyPI/,
    );
  });

  it('reports a Python without the venv module', () => {
    const host = fakeHost({
      onPath: { python3: '/usr/bin/python3' },
      answers: (command, args) =>
        args[0] === '-m'
          ? { code: 1, stdout: '', stderr: 'The virtual environment was not created: ensurepip is not available' }
          : python('3.11')(command, args),
    });
    expect(() => locateMotoServer(host, '/cache')).toThrow(/install python3-venv$/);
  });

  it('keeps the cache under KARPLESS_CACHE_DIR, else XDG_CACHE_HOME, else ~/.cache', () => {
    expect(cacheDir({ KARPLESS_CACHE_DIR: '/k' })).toBe('/k');
    expect(cacheDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/karpless');
    expect(cacheDir({})).toMatch(/\.cache\/karpless$/);
  });
});

describe('starting moto_server', () => {
  it('fails with the command and its output when it exits before listening', async () => {
    await expect(startMotoServer('/bin/false')).rejects.toThrow(/^\/bin\/false exited with code 1 before listening/);
  });
});
