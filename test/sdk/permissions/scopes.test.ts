/** spec §3.2: fs:write never targets the capability's own directory (the manifest-time part). */
import { describe, expect, it } from 'vitest';
import { fsWriteTargetsOwnDir, parseFsScope, parseNetScope } from '../../../sdk/src/permissions/index.js';

function targets(scope: string): boolean {
  const parsed = parseFsScope(scope);
  if (typeof parsed === 'string') throw new Error(parsed);
  return fsWriteTargetsOwnDir(parsed);
}

describe('fsWriteTargetsOwnDir', () => {
  it.each([
    '~/.arcotheon',
    '~/.local/share/arcotheon/packages/acme/demo/1.0.0',
    '~/.local',
    '~/.local/share',
    '~/.config',
    '~/Library/Application Support',
    '~/library/application support/Arcotheon',
    '~/AppData/Roaming',
    '/home',
    '/home/alice',
    '/Users/alice',
    '/root',
    '/opt/Arcotheon-home',
  ])('refuses %s', (scope) => expect(targets(scope)).toBe(true));

  it.each(['workspace', '~/Documents', '~/.local/bin', '~/.config-backup', '/home/alice/out', '/srv/data', '/rootfs'])(
    'allows %s',
    (scope) => expect(targets(scope)).toBe(false),
  );
});

describe('parseNetScope', () => {
  it('parses host, wildcard and port', () => {
    expect(parseNetScope('*.example.com:443')).toEqual({ host: 'example.com', wildcard: true, port: 443 });
    expect(parseNetScope('localhost')).toEqual({ host: 'localhost', wildcard: false });
  });
});
