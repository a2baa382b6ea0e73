// Sandbox selection, grant interpretation and the enforcement table the permission dialog shows
// (host contract "Sandbox expectations"; DESIGN §5, §9 E_SANDBOX_UNAVAILABLE).
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUBBLEWRAP_BASE_PROFILE, BubblewrapSandbox } from '../../../sdk/src/sandbox/bubblewrap.js';
import { NoSandbox } from '../../../sdk/src/sandbox/none.js';
import { interpretGrants, isScopeEnforced, splitGrant } from '../../../sdk/src/sandbox/sandbox.js';
import { defaultSandbox } from '../../../sdk/src/sandbox/select.js';

describe('defaultSandbox', () => {
  it('chooses bubblewrap on Linux when it works', async () => {
    expect((await defaultSandbox('linux')).name).toBe('bubblewrap');
  });
  it('never falls back silently: a missing sandbox is E_SANDBOX_UNAVAILABLE unless the host opts out', async () => {
    await expect(defaultSandbox('linux', { bwrapPath: '/nonexistent/bwrap' })).rejects.toMatchObject({ code: 'E_SANDBOX_UNAVAILABLE' });
    expect((await defaultSandbox('linux', { bwrapPath: '/nonexistent/bwrap', optOut: true })).name).toBe('none');
    await expect(defaultSandbox('win32')).rejects.toMatchObject({
      code: 'E_SANDBOX_UNAVAILABLE',
      message: expect.stringContaining('Windows'),
    });
    expect((await defaultSandbox('win32', { optOut: true })).name).toBe('none');
    // sandbox-exec only works on a Mac; here it is unavailable.
    await expect(defaultSandbox('darwin')).rejects.toMatchObject({ code: 'E_SANDBOX_UNAVAILABLE' });
  });
  it('bubblewrap refuses to wrap when bwrap does not work', async () => {
    const sb = new BubblewrapSandbox({ bwrapPath: '/nonexistent/bwrap' });
    expect(await sb.available()).toBe(false);
    await expect(
      sb.wrap({
        command: '/bin/true',
        args: [],
        env: {},
        grants: [],
        capabilityDir: '/',
        dependencyDirs: [],
        readOnlyFiles: [],
        workspace: null,
        toolDataDir: null,
        tmpDir: '/tmp',
        home: '/root',
      }),
    ).rejects.toMatchObject({ code: 'E_SANDBOX_UNAVAILABLE' });
  });
});

describe('grants', () => {
  it('split id and scope after the second colon (DESIGN §5)', () => {
    expect(splitGrant('net:connect')).toEqual({ id: 'net:connect' });
    expect(splitGrant('net:connect:api.example.com:443')).toEqual({ id: 'net:connect', scope: 'api.example.com:443' });
  });
  it('interpret fs, net, env, exec and storage grants', () => {
    const g = interpretGrants(
      [
        'fs:read:workspace',
        'fs:write:~/out',
        'fs:read:/data',
        'net:connect:a.test',
        'env:read:TOKEN',
        'env:read',
        'process:exec:git',
        'storage:data',
      ],
      '/home/u',
    );
    expect(g).toEqual({
      net: 'scoped',
      netScopes: ['a.test'],
      workspace: 'read',
      readPaths: ['/data'],
      writePaths: ['/home/u/out'],
      envNames: ['TOKEN'],
      programs: ['git'],
      storageData: true,
    });
    expect(interpretGrants(['net:connect:a.test', 'net:connect'], '/h').net).toBe('any');
    expect(interpretGrants(['fs:read:workspace', 'fs:write:workspace'], '/h').workspace).toBe('write');
  });
  it('refuse relative paths and ".." in fs scopes', () => {
    expect(() => interpretGrants(['fs:read:relative/path'], '/h')).toThrow(expect.objectContaining({ code: 'E_NOT_GRANTED' }));
    expect(() => interpretGrants(['fs:write:~/../etc'], '/h')).toThrow(expect.objectContaining({ code: 'E_NOT_GRANTED' }));
  });
  it('isScopeEnforced tells the permission dialog what each sandbox enforces', () => {
    expect(isScopeEnforced('net:connect:api.example.com', 'bubblewrap')).toBe(true);
    expect(isScopeEnforced('fs:read:~/Documents', 'bubblewrap')).toBe(true);
    expect(isScopeEnforced('process:exec:git', 'bubblewrap')).toBe(false);
    expect(isScopeEnforced('process:exec:git', 'sandbox-exec')).toBe(true);
    expect(isScopeEnforced('fs:read:workspace', 'none')).toBe(false);
  });
});

describe('NoSandbox', () => {
  it('runs the command as is but still passes only granted variables', async () => {
    const w = await new NoSandbox().wrap({
      command: '/bin/echo',
      args: ['x'],
      env: { PATH: '/usr/bin', A: '1', B: '2' },
      grants: ['env:read:A'],
      capabilityDir: '/cap',
      dependencyDirs: [],
      readOnlyFiles: [],
      workspace: null,
      toolDataDir: null,
      tmpDir: '/tmp/t',
      home: '/home/u',
    });
    expect(w).toMatchObject({ command: '/bin/echo', args: ['x'], cwd: '/cap' });
    expect(w.env).toEqual({ PATH: '/usr/bin', LANG: 'C.UTF-8', HOME: '/home/u', TMPDIR: '/tmp/t', A: '1' });
  });
});

describe('sandbox-profiles/bubblewrap-base.json', () => {
  it('is the base profile the SDK uses, and binds no secret-bearing part of /etc', () => {
    const file = fileURLToPath(new URL('../../../sandbox-profiles/bubblewrap-base.json', import.meta.url));
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(BUBBLEWRAP_BASE_PROFILE);
    for (const secret of ['/etc', '/etc/shadow', '/etc/gshadow', '/etc/ssh', '/etc/ssl', '/etc/ssl/private', '/etc/sudoers']) {
      expect(BUBBLEWRAP_BASE_PROFILE.etcFiles as readonly string[]).not.toContain(secret);
    }
  });
});
