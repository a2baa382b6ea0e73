import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { argvSkip, openTargetsFromArgv, parseInstallLink } from '../../../electron/main/links.js';

describe('arcotheon://install links (strict)', () => {
  it.each([
    ['arcotheon://install/acme/pdf-tools', 'acme/pdf-tools', null],
    ['arcotheon://install/acme/pdf@1.2.3', 'acme/pdf@1.2.3', '1.2.3'],
    ['arcotheon://install/acme/pdf@^1.2.0', 'acme/pdf@^1.2.0', '^1.2.0'],
    ['arcotheon://install/acme/pdf@%3E%3D1.0.0%20%3C2.0.0', 'acme/pdf@>=1.0.0 <2.0.0', '>=1.0.0 <2.0.0'],
    ['arcotheon://install/a1/b-2@1.0.0-beta.1', 'a1/b-2@1.0.0-beta.1', '1.0.0-beta.1'],
    ['ARCOTHEON://install/acme/pdf', 'acme/pdf', null],
  ])('accepts %s', (link, spec, range) => {
    expect(parseInstallLink(link)).toEqual({ ok: true, spec, id: spec.split('@')[0], range });
  });

  it.each([
    ['another scheme', 'https://install/acme/pdf'],
    ['another action', 'arcotheon://remove/acme/pdf'],
    ['a missing name', 'arcotheon://install/acme'],
    ['a trailing slash', 'arcotheon://install/acme/pdf/'],
    ['a third segment', 'arcotheon://install/acme/pdf/extra'],
    ['an upper-case id', 'arcotheon://install/Acme/pdf'],
    ['a double hyphen', 'arcotheon://install/acme/pdf--x'],
    ['a dot segment', 'arcotheon://install/acme/..'],
    ['an encoded slash in the name', 'arcotheon://install/acme/pdf%2Fevil'],
    ['a query', 'arcotheon://install/acme/pdf?auto=1'],
    ['an empty query', 'arcotheon://install/acme/pdf?'],
    ['a fragment', 'arcotheon://install/acme/pdf#x'],
    ['a user', 'arcotheon://me@install/acme/pdf'],
    ['a port', 'arcotheon://install:1/acme/pdf'],
    ['a raw space', 'arcotheon://install/acme/pdf@1.0.0 <2'],
    ['a control character', 'arcotheon://install/acme/pdf\u0007'],
    ['an empty range', 'arcotheon://install/acme/pdf@'],
    ['a range with quotes', 'arcotheon://install/acme/pdf@%221.0%22'],
    ['a range with a newline', 'arcotheon://install/acme/pdf@1.0%0A'],
    ['a bad escape', 'arcotheon://install/acme/pdf@%E0%A4%A'],
    ['a huge link', `arcotheon://install/acme/${'a'.repeat(600)}`],
    ['no link at all', ''],
  ])('refuses %s', (_what, link) => {
    const parsed = parseInstallLink(link);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message.length).toBeGreaterThan(10);
  });
});

describe('files and links on a command line', () => {
  it('keeps .adcap paths (made absolute) and arcotheon: links, skips switches and the app path', () => {
    const argv = [
      '/opt/Arcotheon/arcotheon',
      '--no-sandbox',
      'pkg.adcap',
      '/tmp/Other.ADCAP',
      'arcotheon://install/acme/pdf',
      'notes.txt',
      '--flag=x.adcap',
    ];
    expect(openTargetsFromArgv(argv, '/home/u', { skip: argvSkip(true, false) })).toEqual([
      { kind: 'file', path: join('/home/u', 'pkg.adcap') },
      { kind: 'file', path: '/tmp/Other.ADCAP' },
      { kind: 'link', url: 'arcotheon://install/acme/pdf' },
    ]);
    // `electron .` in development: argv[1] is the app path.
    expect(argvSkip(false, true)).toBe(2);
    expect(openTargetsFromArgv(['/usr/bin/electron', '/repo/x.adcap', 'y.adcap'], '/w', { skip: 2 })).toEqual([
      { kind: 'file', path: '/w/y.adcap' },
    ]);
  });

  it('keeps .mcpb paths too (MCP Bundles, imported first), in any case', () => {
    expect(openTargetsFromArgv(['exe', 'server.mcpb', '/b/Tool.MCPB', 'x.mcpb.txt'], '/w', { skip: 1 })).toEqual([
      { kind: 'file', path: '/w/server.mcpb' },
      { kind: 'file', path: '/b/Tool.MCPB' },
    ]);
  });

  it('takes at most 16 targets', () => {
    const argv = ['exe', ...Array.from({ length: 40 }, (_, i) => `f${i}.adcap`)];
    expect(openTargetsFromArgv(argv, '/', { skip: 1 })).toHaveLength(16);
  });
});
