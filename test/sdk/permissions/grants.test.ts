/** DESIGN §5: grant strings, scopes and coverage. */
import { describe, expect, it } from 'vitest';
import { grantCovers, grantString, parseGrant, PERMISSION_IDS, validateScope } from '../../../sdk/src/permissions/index.js';
import type { PermissionId } from '../../../sdk/src/format/manifest-types.js';
import { captureAdcapError } from '../../helpers/manifest-fixtures.js';

describe('PERMISSION_IDS', () => {
  it('lists exactly the six ids of DESIGN §5', () => {
    expect([...PERMISSION_IDS].sort()).toEqual(['env:read', 'fs:read', 'fs:write', 'net:connect', 'process:exec', 'storage:data']);
  });
});

describe('parseGrant / grantString', () => {
  it.each([
    ['storage:data', { id: 'storage:data' }],
    ['net:connect', { id: 'net:connect' }],
    ['fs:read:workspace', { id: 'fs:read', scope: 'workspace' }],
    ['fs:write:~/Documents/out', { id: 'fs:write', scope: '~/Documents/out' }],
    ['net:connect:api.example.com:443', { id: 'net:connect', scope: 'api.example.com:443' }],
    ['net:connect:*.example.com', { id: 'net:connect', scope: '*.example.com' }],
    ['net:connect:[::1]:8080', { id: 'net:connect', scope: '[::1]:8080' }],
    ['process:exec:git', { id: 'process:exec', scope: 'git' }],
    ['env:read:GITHUB_TOKEN', { id: 'env:read', scope: 'GITHUB_TOKEN' }],
  ])('parses %s and writes it back', (grant, parsed) => {
    expect(parseGrant(grant)).toEqual(parsed);
    expect(grantString(parsed as { id: PermissionId; scope?: string })).toBe(grant);
  });

  it('drops the reason when writing a declared permission', () => {
    expect(grantString({ id: 'env:read', scope: 'HOME', reason: 'to find files' })).toBe('env:read:HOME');
  });

  it.each([['fs'], ['fs:delete'], ['net:listen:example.com'], ['FS:READ:workspace'], [''], ['storage:data2']])(
    'refuses the unknown id in %j',
    (grant) => {
      const error = captureAdcapError(() => parseGrant(grant));
      expect(error.code).toBe('E_SEMANTIC');
      expect(error.details.rule).toBe('permission-id');
    },
  );

  it.each([['net:connect:'], ['storage:data:x'], ['fs:read'], ['env:read:A B'], ['process:exec:/bin/sh']])(
    'refuses the bad scope in %j',
    (grant) => {
      const error = captureAdcapError(() => parseGrant(grant));
      expect(error.code).toBe('E_SEMANTIC');
      expect(error.details.rule).toBe('permission-scope');
    },
  );
});

describe('validateScope', () => {
  const valid: [PermissionId, string | undefined][] = [
    ['fs:read', 'workspace'],
    ['fs:read', '~/Documents'],
    ['fs:read', '~/Library/Application Support/Foo'],
    ['fs:write', '/srv/data/out'],
    ['net:connect', undefined],
    ['net:connect', 'example.com'],
    ['net:connect', '*.example.com'],
    ['net:connect', 'example.com:8443'],
    ['net:connect', '*.example.com:443'],
    ['net:connect', '10.0.0.1:5432'],
    ['net:connect', '[2001:db8::1]'],
    ['process:exec', 'git'],
    ['process:exec', 'python3.11'],
    ['process:exec', 'g++'],
    ['env:read', 'GITHUB_TOKEN'],
    ['env:read', '_PRIVATE'],
    ['storage:data', undefined],
  ];
  it.each(valid)('accepts %s with scope %j', (id, scope) => {
    expect(() => validateScope(id, scope)).not.toThrow();
  });

  const invalid: [PermissionId, string | undefined][] = [
    ['fs:read', undefined],
    ['fs:read', 'Documents'],
    ['fs:read', '~'],
    ['fs:read', '~/'],
    ['fs:read', '/'],
    ['fs:read', '~/a/../b'],
    ['fs:read', '/a/./b'],
    ['fs:read', '/a//b'],
    ['fs:read', '/a/b/'],
    ['fs:read', '/a\\b'],
    ['fs:read', '/a\u0000b'],
    ['fs:write', 'C:\\Users'],
    ['net:connect', ''],
    ['net:connect', '*'],
    ['net:connect', 'https://example.com'],
    ['net:connect', 'Example.com'],
    ['net:connect', 'example.com:0'],
    ['net:connect', 'example.com:65536'],
    ['net:connect', 'example.com:080'],
    ['net:connect', 'exa mple.com'],
    ['net:connect', '-example.com'],
    ['net:connect', '*.10.0.0.1'],
    ['net:connect', 'example.com/path'],
    ['net:connect', '[not-ipv6]'],
    ['process:exec', undefined],
    ['process:exec', '/usr/bin/git'],
    ['process:exec', 'git status'],
    ['env:read', undefined],
    ['env:read', '1VAR'],
    ['env:read', 'A-B'],
    ['storage:data', 'x'],
  ];
  it.each(invalid)('refuses %s with scope %j', (id, scope) => {
    const error = captureAdcapError(() => validateScope(id, scope));
    expect(error.code).toBe('E_SEMANTIC');
    expect(error.details.rule).toBe('permission-scope');
  });
});

describe('grantCovers', () => {
  it.each([
    ['storage:data', 'storage:data', true],
    ['net:connect', 'net:connect', true],
    ['net:connect', 'net:connect:api.example.com:443', true],
    ['net:connect:api.example.com', 'net:connect', false],
    ['net:connect:api.example.com', 'net:connect:api.example.com', true],
    ['net:connect:api.example.com', 'net:connect:api.example.com:443', true],
    ['net:connect:api.example.com:443', 'net:connect:api.example.com', false],
    ['net:connect:api.example.com:443', 'net:connect:api.example.com:8443', false],
    ['net:connect:*.example.com', 'net:connect:api.example.com', true],
    ['net:connect:*.example.com', 'net:connect:a.b.example.com:443', true],
    ['net:connect:*.example.com', 'net:connect:*.b.example.com', true],
    ['net:connect:*.example.com', 'net:connect:example.com', false],
    ['net:connect:*.example.com', 'net:connect:badexample.com', false],
    ['net:connect:example.com', 'net:connect:*.example.com', false],
    ['fs:read:workspace', 'fs:read:workspace', true],
    ['fs:read:~/Documents', 'fs:read:~/Documents/notes', true],
    ['fs:read:~/Documents', 'fs:read:~/Documents', true],
    ['fs:read:~/Documents', 'fs:read:~/Documents2', false],
    ['fs:read:~/Documents/notes', 'fs:read:~/Documents', false],
    ['fs:read:/data', 'fs:read:~/data', false],
    ['fs:read:workspace', 'fs:read:/workspace', false],
    ['fs:write:workspace', 'fs:read:workspace', false],
    ['process:exec:git', 'process:exec:git', true],
    ['process:exec:git', 'process:exec:gitk', false],
    ['env:read:TOKEN', 'env:read:TOKEN2', false],
    ['fs:delete:workspace', 'fs:delete:workspace', false],
    ['net:connect:', 'net:connect:', false],
  ])('%s covers %s: %s', (granted, needed, expected) => {
    expect(grantCovers(granted, needed)).toBe(expected);
  });
});
