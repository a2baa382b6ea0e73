// Real bubblewrap runs of a hostile probe: every attempt fails under the
// sandbox and succeeds only where a grant allows it. Each grant is checked to lift exactly its
// own restriction. A control run without the sandbox shows every attempt works on the host, so
// the failures come from the sandbox and not from the test setup.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BubblewrapSandbox, planBubblewrap } from '../../../sdk/src/sandbox/bubblewrap.js';
import { NoSandbox } from '../../../sdk/src/sandbox/none.js';
import { makeFixture, parseProbe, runSandboxed, startListener, type Fixture, type ProbeResults } from './sandbox-fixture.js';

const sandbox = new BubblewrapSandbox();
let fx: Fixture;
let listener: { port: number; close(): Promise<void> };

beforeAll(async () => {
  expect(await sandbox.available(), 'bubblewrap must work on this machine for these tests').toBe(true);
  fx = makeFixture();
  listener = await startListener();
});
afterAll(async () => {
  await listener.close();
  fx.remove();
});

function probeArgs(extra: Record<string, unknown> = {}): string[] {
  const cfg = {
    secret: fx.secret,
    outside: fx.outside,
    ownDir: fx.capabilityDir,
    workspace: fx.workspace,
    toolData: fx.toolData,
    port: listener.port,
    envName: 'GRANTED_TOKEN',
    otherEnvName: 'OTHER_SECRET',
    ...extra,
  };
  return [path.join(fx.capabilityDir, 'probe.mjs'), JSON.stringify(cfg)];
}

async function probe(grants: string[], extra: Record<string, unknown> = {}): Promise<ProbeResults> {
  return parseProbe(await runSandboxed(sandbox, fx.spec(grants, probeArgs(extra))));
}

const okOf = (r: ProbeResults): Record<string, boolean> => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.ok]));

describe('bubblewrap sandbox, real runs', () => {
  it('control: without a sandbox every attempt of the probe works on this host', async () => {
    fs.mkdirSync(fx.toolData, { recursive: true });
    const r = parseProbe(await runSandboxed(new NoSandbox(), fx.spec(['env:read:GRANTED_TOKEN', 'env:read:OTHER_SECRET'], probeArgs())));
    expect(okOf(r)).toMatchObject({
      readSecret: true,
      writeOutside: true,
      writeOwnDir: true,
      readWorkspace: true,
      writeWorkspace: true,
      connectDirect: true,
      readEnv: true,
      readOtherEnv: true,
    });
  });

  it('with no grants every attempt fails; only the capability directory is readable', async () => {
    const r = await probe([]);
    expect(okOf(r)).toEqual({
      readSecret: false,
      writeOutside: false,
      writeOwnDir: false,
      readOwnDir: true,
      readWorkspace: false,
      writeWorkspace: false,
      writeToolData: false,
      readEnv: false,
      readOtherEnv: false,
      connectDirect: false,
    });
    expect(r.writeOwnDir?.detail).toBe('EROFS');
  });

  it('fs:read:workspace lets the tool read the workspace but not write it', async () => {
    const r = await probe(['fs:read:workspace']);
    expect(okOf(r)).toMatchObject({
      readWorkspace: true,
      writeWorkspace: false,
      readSecret: false,
      writeOutside: false,
      writeOwnDir: false,
    });
    expect(r.writeWorkspace?.detail).toBe('EROFS');
  });

  it('fs:write:workspace lets the tool write the workspace and nothing else', async () => {
    const r = await probe(['fs:write:workspace']);
    expect(okOf(r)).toMatchObject({
      readWorkspace: true,
      writeWorkspace: true,
      readSecret: false,
      writeOutside: false,
      writeOwnDir: false,
    });
  });

  it('env:read:X passes X and only X', async () => {
    const r = await probe(['env:read:GRANTED_TOKEN']);
    expect(r.readEnv).toEqual({ ok: true, detail: 'granted-value' });
    expect(r.readOtherEnv?.ok).toBe(false);
  });

  it('storage:data makes the tool data dir writable, nothing else', async () => {
    const r = await probe(['storage:data']);
    expect(okOf(r)).toMatchObject({ writeToolData: true, writeOwnDir: false, writeOutside: false, readSecret: false });
  });

  it('fs:read:~/path and fs:write:/abs/path expose exactly those paths', async () => {
    const r = await probe(['fs:read:~/.ssh', `fs:write:${fx.outside}`]);
    expect(okOf(r)).toMatchObject({ readSecret: true, writeOutside: true, writeWorkspace: false, writeOwnDir: false });
  });

  it('fs:write on a folder holding the capability keeps the capability read-only (DESIGN §5)', async () => {
    const r = await probe([`fs:write:${fx.home}`]);
    expect(okOf(r)).toMatchObject({ readSecret: true, writeOwnDir: false });
    expect(r.writeOwnDir?.detail).toBe('EROFS');
  });

  it('unscoped net:connect shares the network: the host loopback listener is reachable', async () => {
    const r = await probe(['net:connect']);
    expect(okOf(r)).toMatchObject({ connectDirect: true, readSecret: false, writeOwnDir: false });
  });

  it('scoped net:connect reaches only the named host through the filtering proxy, never directly', async () => {
    const allowed = await probe([`net:connect:127.0.0.1:${listener.port}`]);
    expect(allowed.connectDirect?.ok).toBe(false);
    expect(allowed.connectViaProxy).toEqual({ ok: true, detail: 'via proxy' });
    const other = await probe([`net:connect:127.0.0.1:${listener.port === 65535 ? 1 : listener.port + 1}`]);
    expect(other.connectDirect?.ok).toBe(false);
    expect(other.connectViaProxy?.ok).toBe(false);
    expect(other.connectViaProxy?.detail).toContain('403');
    const named = await probe(['net:connect:api.example.com']);
    expect(named.connectViaProxy?.detail).toContain('403');
  });

  it('escapes with the unshare and mount programs fail even when the programs are granted', async () => {
    const target = path.join(fx.workspace);
    const r = await probe(['process:exec:unshare', 'process:exec:mount', 'fs:write:workspace'], { unshare: true, mountTarget: target });
    for (const name of ['unshareUser', 'unshareMount', 'mountTmpfs']) {
      expect(r[name]?.ok, name).toBe(false);
      expect(r[name]?.detail, name).toMatch(/^EXIT_/);
    }
    expect(r.unshareUser?.detail).toMatch(/Operation not permitted|No space left/);
    expect(r.unshareMount?.detail).toMatch(/Operation not permitted/);
    expect(r.mountTmpfs?.detail).toMatch(/permission denied|Operation not permitted|must be superuser/i);
  });

  it('passes granted secrets through the args descriptor, never on the command line', async () => {
    const wrapped = await sandbox.wrap(fx.spec(['env:read:GRANTED_TOKEN'], ['-e', '0']));
    try {
      expect(wrapped.args.join(' ')).not.toContain('granted-value');
      // bwrap's own arguments start with --args 3 (a resource-limit wrapper may come first)
      const at = wrapped.args.indexOf('--args');
      expect(wrapped.args.slice(at, at + 3)).toEqual(['--args', '3', '--']);
      expect(at === 0 ? wrapped.command : wrapped.args[at - 1]).toBe(sandbox.bwrapPath);
      // args and seccomp filter; any further entries close descriptors this process inherited
      expect(wrapped.stdioExtra?.slice(0, 2).every((fd) => typeof fd === 'number')).toBe(true);
      expect(Object.keys(wrapped.env)).toEqual([]);
    } finally {
      await wrapped.cleanup();
    }
    expect(fs.readdirSync(fx.tmpDir)).toEqual([]);
  });

  it('writes no file for a run: its data reaches bwrap through unnamed files, passwd and group included', async () => {
    const tmpDir = path.join(fx.root, 'run-without-files');
    const code = `const fs = require('node:fs');
      let write = 'ok'; try { fs.writeFileSync('/etc/passwd', 'x'); } catch (e) { write = e.code; }
      console.log(JSON.stringify({ passwd: fs.readFileSync('/etc/passwd', 'utf8'), group: fs.readFileSync('/etc/group', 'utf8'),
        mode: (fs.statSync('/etc/passwd').mode & 0o777).toString(8), write }));`;
    const wrapped = await sandbox.wrap(fx.spec([], ['-e', code], { tmpDir }));
    try {
      // In memory where /dev/shm is a tmpfs (no disk journal for a run's files), else the temporary folder.
      const shm = fs.existsSync('/dev/shm') && fs.statfsSync('/dev/shm').type === 0x01021994;
      for (const fd of wrapped.stdioExtra ?? []) {
        if (fd === 'ignore') continue;
        const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
        expect(target, 'a file without a name').toMatch(/ \(deleted\)$/);
        expect(target.startsWith(shm ? '/dev/shm/' : `${os.tmpdir()}/`), target).toBe(true);
      }
    } finally {
      await wrapped.cleanup();
    }
    const result = await runSandboxed(sandbox, fx.spec([], ['-e', code], { tmpDir }));
    expect(result.code, result.stderr).toBe(0);
    const seen = JSON.parse(result.stdout) as { passwd: string; group: string; mode: string; write: string };
    const uid = process.getuid?.() ?? 0;
    const name = uid === 0 ? 'root' : 'user';
    expect(seen.passwd.split('\n')[0]).toBe(`${name}:x:${uid}:${process.getgid?.() ?? 0}:${name}:${fx.home}:/bin/sh`);
    expect(seen.group.split('\n')[0]).toBe(`${name}:x:${process.getgid?.() ?? 0}:`);
    expect(seen.mode).toBe('644');
    expect(seen.write).toMatch(/EROFS|EACCES|EPERM/);
    expect(fs.existsSync(tmpDir), 'the run made no folder').toBe(false);
  });
});

describe('planBubblewrap', () => {
  it('builds the flatpak-style options from the grants', () => {
    const plan = planBubblewrap(fx.spec(['fs:read:workspace', 'env:read:GRANTED_TOKEN'], ['x.mjs']), { dataFds: { passwd: 7, group: 9 } });
    const o = plan.options;
    for (const flag of ['--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session', '--clearenv'])
      expect(o).toContain(flag);
    expect(o).not.toContain('--share-net');
    expect(o.join(' ')).toContain('--cap-drop ALL');
    expect(o.join(' ')).toContain(`--ro-bind ${fx.workspace} ${fx.workspace}`);
    expect(o.join(' ')).toContain(`--tmpfs ${fx.home}`);
    expect(o.join(' ')).not.toMatch(/--ro-bind(-try)? \/etc \/etc/);
    expect(o.join(' ')).not.toContain('/etc/shadow');
    // passwd and group come through descriptors, no per-run file: bwrap reads and closes them.
    expect(o.join(' ')).toContain('--perms 0644 --ro-bind-data 7 /etc/passwd --perms 0644 --ro-bind-data 9 /etc/group');
    expect(plan.env).toEqual({
      PATH: '/usr/local/bin:/usr/bin:/bin',
      LANG: 'C.UTF-8',
      HOME: fx.home,
      TMPDIR: '/tmp',
      GRANTED_TOKEN: 'granted-value',
    });
    expect(plan.command).toEqual([process.execPath, 'x.mjs']);
  });

  it('shares the network only with an unscoped net:connect', () => {
    const netDir = fs.mkdtempSync(path.join(fx.root, 'plan-'));
    expect(planBubblewrap(fx.spec(['net:connect'], []), {}).options).toContain('--share-net');
    const scoped = planBubblewrap(fx.spec(['net:connect:example.com'], []), { netDir });
    expect(scoped.options).not.toContain('--share-net');
    expect(scoped.command[1]).toBe('-e');
  });

  it('mounts parents before children so a read-only capability inside a writable grant stays read-only', () => {
    const o = planBubblewrap(fx.spec([`fs:write:${fx.home}`], []), {}).options.join(' ');
    const rw = o.indexOf(`--bind-try ${fx.home} ${fx.home}`);
    const ro = o.indexOf(`--ro-bind ${fx.capabilityDir} ${fx.capabilityDir}`);
    expect(rw).toBeGreaterThan(0);
    expect(ro).toBeGreaterThan(rw);
  });
});
