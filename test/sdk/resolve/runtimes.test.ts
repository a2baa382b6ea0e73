import { chmod, copyFile, mkdir, mkdtemp, readFile, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { existsSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { detectRuntimes, parseVersion, probeRuntimes } from '../../../sdk/src/resolve/runtimes.js';
import { findProgram, SAFE_PATH } from '../../../sdk/src/sandbox/common.js';

describe('detectRuntimes', () => {
  it('finds node and python3 on this machine and caches the answer', async () => {
    const first = detectRuntimes();
    expect(detectRuntimes()).toBe(first);
    const found = await first;
    expect(found.node).toMatch(/^\d+\.\d+\.\d+$/);
    // The toolchain ships python3 3.11 (contracts: "System: ... python3 3.11").
    expect(found.python).toMatch(/^3\.\d+\.\d+$/);
    expect(detectRuntimes({ refresh: true })).not.toBe(first);
  });

  it('treats missing interpreters as absent and falls back to the running node', async () => {
    const found = await probeRuntimes({ env: { PATH: '/nonexistent' } });
    expect(found).toEqual({ node: process.versions.node });
    const none = await probeRuntimes({ env: { PATH: '/nonexistent' }, execPath: '/nonexistent/node' });
    expect(none).toEqual({});
  });

  it('parses --version lines', () => {
    expect(parseVersion('v22.23.0\n')).toBe('22.23.0');
    expect(parseVersion('Python 3.11.2\n')).toBe('3.11.2');
    expect(parseVersion('Python 3.12')).toBe('3.12.0');
    expect(parseVersion('command not found')).toBeUndefined();
  });
});

// home/runtimes-probe.json (docs/design.md §6): `--version` answers kept across processes, each
// under the identity of the program that gave it. probeRuntimes keeps nothing in the process, so
// every call below starts as a new process would: from the record on disk.
describe('the runtimes record', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  /** A bin directory with a copy of the real python3 (a program whose file the test owns) and the record's path. */
  async function setup(): Promise<{ bin: string; record: string; python: string; real: string }> {
    const dir = await mkdtemp(join(tmpdir(), 'adcap-runtimes-'));
    dirs.push(dir);
    const bin = join(dir, 'bin');
    await mkdir(bin);
    // The system's python3 binary (PATH may start with a pyenv shim, a script).
    const real = realpathSync(findProgram('python3', SAFE_PATH) ?? '/usr/bin/python3');
    const python = join(bin, 'python3');
    await copyFile(real, python);
    await chmod(python, 0o755);
    return { bin, record: join(dir, 'runtimes-probe.json'), python, real };
  }

  type Stored = { format: number; runtimes: Record<string, { facts: string; program: string; version: string }> };
  const readStored = async (record: string): Promise<Stored> => JSON.parse(await readFile(record, 'utf8')) as Stored;

  it('makes no record, and no folder, for a home that no longer exists (a probe that outlived its home)', async () => {
    const { bin, record } = await setup();
    const gone = join(record, '..', 'removed-home', 'runtimes-probe.json');
    const answer = await probeRuntimes({ env: { PATH: bin }, record: gone });
    expect(answer.python).toMatch(/^3\.\d+\.\d+$/);
    expect(existsSync(join(record, '..', 'removed-home'))).toBe(false);
  });

  it('answers from the record while the program is the same, and asks again once it is replaced', async () => {
    const { bin, record, python, real } = await setup();
    const env = { PATH: bin };
    const first = await probeRuntimes({ env, record });
    expect(first.python).toMatch(/^3\.\d+\.\d+$/);
    expect(first.node).toBe(process.versions.node); // no node in bin: the running one, remembered too
    const stored = await readStored(record);
    expect(stored.runtimes['python']).toMatchObject({ program: python, version: first.python });
    expect(stored.runtimes['node']).toMatchObject({ program: process.execPath, version: process.versions.node });

    // A remembered answer is used without asking: a record saying 9.9.9 under the same facts is believed.
    stored.runtimes['python']!.version = '9.9.9';
    await writeFile(record, JSON.stringify(stored));
    expect((await probeRuntimes({ env, record })).python).toBe('9.9.9');

    // The binary replaced (a new file renamed over it: another inode and times): asked again.
    await copyFile(real, `${python}.new`);
    await chmod(`${python}.new`, 0o755);
    await rename(`${python}.new`, python);
    expect((await probeRuntimes({ env, record })).python).toBe(first.python);
    expect((await readStored(record)).runtimes['python']?.version).toBe(first.python);

    // Touched in place (same inode, new times): asked again too.
    stored.runtimes['python'] = { ...(await readStored(record)).runtimes['python']!, version: '9.9.9' };
    await writeFile(record, JSON.stringify(stored));
    expect((await probeRuntimes({ env, record })).python).toBe('9.9.9');
    const later = new Date(Date.now() + 60_000);
    await utimes(python, later, later);
    expect((await probeRuntimes({ env, record })).python).toBe(first.python);
  });

  it('never remembers a script (a shim answers by its environment) or a failed answer', async () => {
    const { bin, record, python } = await setup();
    await rm(python);
    await writeFile(python, '#!/bin/sh\necho "Python 3.99.1"\n', { mode: 0o755 });
    const env = { PATH: bin };
    expect((await probeRuntimes({ env, record })).python).toBe('3.99.1');
    expect((await readStored(record)).runtimes['python']).toBeUndefined();
    await writeFile(python, '#!/bin/sh\necho "Python 3.98.0"\n', { mode: 0o755 });
    expect((await probeRuntimes({ env, record })).python).toBe('3.98.0');
    await writeFile(python, '#!/bin/sh\nexit 3\n', { mode: 0o755 });
    expect((await probeRuntimes({ env, record })).python).toBeUndefined();
    expect((await readStored(record)).runtimes['python']).toBeUndefined();
  });

  it('treats a damaged record as none', async () => {
    const { bin, record } = await setup();
    await writeFile(record, '{ not json');
    const found = await probeRuntimes({ env: { PATH: bin }, record });
    expect(found.python).toMatch(/^3\.\d+\.\d+$/);
    expect((await readStored(record)).format).toBe(1);
  });
});
