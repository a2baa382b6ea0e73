// The macOS profile generator (DESIGN §5). It cannot run on Linux, so the generated SBPL text is
// what is tested here; SECURITY.md says the profile has not been executed by macOS.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSandboxExecProfile, SandboxExecSandbox, sbplString, TOOL_PROFILE_TEMPLATE } from '../../../sdk/src/sandbox/sandbox-exec.js';
import { makeFixture, type Fixture } from './sandbox-fixture.js';

let fx: Fixture;
beforeAll(() => {
  fx = makeFixture();
});
afterAll(() => fx.remove());

const ctx = () => ({ home: `${fx.root}/private-home`, tmp: `${fx.root}/private-tmp` });

describe('sandbox-exec profile', () => {
  it('is the template shipped in sandbox-profiles/tool.sb.tmpl', () => {
    const file = fileURLToPath(new URL('../../../sandbox-profiles/tool.sb.tmpl', import.meta.url));
    expect(TOOL_PROFILE_TEMPLATE).toBe(fs.readFileSync(file, 'utf8'));
  });

  it('escapes backslashes and quotes for SBPL strings and refuses control characters', () => {
    expect(sbplString('/a "b"\\c')).toBe('"/a \\"b\\"\\\\c"');
    expect(() => sbplString('/a\nb')).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
  });

  it('denies by default, reads the capability, writes only private dirs, no network without a grant', () => {
    const p = buildSandboxExecProfile(fx.spec([], ['probe.mjs']), ctx());
    expect(p).toMatch(/^\(deny default\)$/m);
    expect(p).not.toMatch(/^@@[A-Z]+@@$/m);
    expect(p).toContain(`(subpath ${sbplString(fx.capabilityDir)})`);
    expect(p).toContain(`(allow file-read* file-write*\n  (subpath ${sbplString(ctx().home)})\n  (subpath ${sbplString(ctx().tmp)}))`);
    expect(p).toContain(`(deny file-write*\n  (subpath ${sbplString(fx.capabilityDir)})`);
    expect(p).toContain(';; no network');
    expect(p).not.toContain(fx.workspace);
    expect(p).not.toContain('network-outbound');
    expect(p).toContain(`(allow process-exec\n  (literal ${sbplString(process.execPath)})`);
    // The deny of the capability comes after the writable grants: later rules win in SBPL.
    expect(p.indexOf('(deny file-write*')).toBeGreaterThan(p.indexOf('(allow file-read* file-write*'));
  });

  it('adds the workspace read-only or read-write per grant, storage:data and fs scopes', () => {
    const read = buildSandboxExecProfile(fx.spec(['fs:read:workspace', 'fs:read:~/.ssh'], []), ctx());
    expect(read).toMatch(
      new RegExp(`\\(allow file-read\\*\\n(  .*\\n)*  \\(subpath ${JSON.stringify(fx.workspace).replace(/[/.]/g, '\\$&')}\\)`),
    );
    expect(read).toContain(`(subpath ${sbplString(`${fx.home}/.ssh`)})`);
    const write = buildSandboxExecProfile(fx.spec(['fs:write:workspace', 'storage:data'], []), ctx());
    const writeBlock = write.slice(write.indexOf('(allow file-read* file-write*'));
    expect(writeBlock).toContain(`(subpath ${sbplString(fx.workspace)})`);
    expect(writeBlock).toContain(`(subpath ${sbplString(fx.toolData)})`);
  });

  it('keeps the tool data folder writable after a protected Arcotheon home is denied', () => {
    const arcotheonHome = path.join(fx.home, '.arcotheon');
    const p = buildSandboxExecProfile(fx.spec(['storage:data'], [], { protectedDirs: [arcotheonHome] }), ctx());
    const deny = p.indexOf('(deny file-write*');
    expect(p.slice(deny)).toContain(`(subpath ${sbplString(arcotheonHome)})`);
    const own = p.indexOf(';; storage:data:');
    expect(own).toBeGreaterThan(deny);
    expect(p.slice(own)).toContain(`(allow file-read* file-write*\n  (subpath ${sbplString(fx.toolData)})`);
    expect(buildSandboxExecProfile(fx.spec([], [], { protectedDirs: [arcotheonHome] }), ctx())).toContain(';; no data folder');
  });

  it('allows the network with net:connect, and only the proxy port with a scope', () => {
    expect(buildSandboxExecProfile(fx.spec(['net:connect'], []), ctx())).toContain('(allow network-outbound)');
    const scoped = buildSandboxExecProfile(fx.spec(['net:connect:api.example.com'], []), { ...ctx(), proxyPort: 41234 });
    expect(scoped).toContain('(allow network-outbound (remote tcp "localhost:41234"))');
    expect(scoped).not.toContain('(allow network-outbound)');
  });

  it('allows process-exec of granted programs only', () => {
    const p = buildSandboxExecProfile(fx.spec(['process:exec:sh'], []), ctx());
    const exec = p.slice(p.indexOf('(allow process-exec'));
    expect(exec).toMatch(/\(literal "\/(usr\/)?bin\/sh"\)/);
    expect(exec).not.toContain('git');
  });

  it('wraps the command with sandbox-exec -f and a cleared environment', async () => {
    const sb = new SandboxExecSandbox();
    expect(await sb.available()).toBe(process.platform === 'darwin');
    const w = await sb.wrapUnchecked(fx.spec(['env:read:GRANTED_TOKEN'], ['probe.mjs']));
    try {
      expect(w.command).toBe('/usr/bin/sandbox-exec');
      expect(w.args[0]).toBe('-f');
      expect(fs.readFileSync(w.args[1] ?? '', 'utf8')).toContain('(deny default)');
      expect(w.args.slice(2)).toEqual([process.execPath, 'probe.mjs']);
      expect(w.env.GRANTED_TOKEN).toBe('granted-value');
      expect(w.env.OTHER_SECRET).toBeUndefined();
    } finally {
      await w.cleanup();
    }
    if (process.platform !== 'darwin') await expect(sb.wrap(fx.spec([], []))).rejects.toMatchObject({ code: 'E_SANDBOX_UNAVAILABLE' });
  });
});
