/**
 * Policy patterns (docs/admin.md `deniedPermissions`) and revocation overlap are
 * matched by the permission table's `covers`, not by rules of their own.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  grantCovers,
  grantsOverlap,
  patternMatches,
  patternProblem,
  PERMISSION_IDS,
  PERMISSION_TABLE,
} from '../../../sdk/src/permissions/index.js';
import { loadPolicy } from '../../../sdk/src/store/policy.js';
import { rejection } from '../../helpers/errors.js';

describe('grantsOverlap', () => {
  it('is "either covers the other", by the table', () => {
    const pairs: Array<[string, string, boolean]> = [
      ['net:connect', 'net:connect:api.example.com', true],
      ['net:connect:*.example.com', 'net:connect:api.example.com:443', true],
      ['net:connect:api.example.com:443', 'net:connect:api.example.com:80', false],
      ['fs:read:~/a', 'fs:read:~/a/b', true],
      ['fs:read:~/a', 'fs:read:~/ab', false],
      ['fs:read:workspace', 'fs:write:workspace', false],
      ['env:read:A', 'env:read:B', false],
      ['storage:data', 'storage:data', true],
    ];
    for (const [a, b, expected] of pairs) {
      expect(grantsOverlap(a, b), `${a} / ${b}`).toBe(expected);
      expect(grantsOverlap(b, a), `${b} / ${a}`).toBe(expected);
      expect(grantsOverlap(a, b)).toBe(grantCovers(a, b) || grantCovers(b, a));
    }
  });

  it('holds identical strings as overlapping even when they do not parse (a revocation recorded by a newer version)', () => {
    expect(grantsOverlap('net:listen:80', 'net:listen:80')).toBe(true);
    expect(grantsOverlap('net:listen:80', 'net:listen:81')).toBe(false);
  });
});

describe('policy patterns', () => {
  it('a pattern scope is valid for its id only where the table lists it', () => {
    for (const id of PERMISSION_IDS) {
      for (const scope of ['~/', '/']) {
        const expected = PERMISSION_TABLE[id].patternScopes.includes(scope);
        expect(patternProblem(`${id}:${scope}`) === undefined, `${id}:${scope}`).toBe(expected);
      }
    }
    expect(patternProblem('fs:read:~/')).toBeUndefined();
    expect(patternProblem('net:connect:~/')).toMatch(/network scope/);
  });

  it('an id alone is usable only when the table knows it', () => {
    for (const id of PERMISSION_IDS) expect(patternProblem(id)).toBeUndefined();
    expect(patternProblem('net:listen')).toBe(`"net:listen" is not a permission; use one of ${PERMISSION_IDS.join(', ')}`);
  });

  it('a grant whose scope the grammar refuses is matched only by the id alone', () => {
    expect(patternMatches('fs:read', 'fs:read:relative/path')).toBe(true);
    expect(patternMatches('fs:read:/', 'fs:read:relative/path')).toBe(false);
    expect(patternMatches('fs:read:~/', 'fs:read:~/')).toBe(false);
  });

  it('a policy naming an id the table does not know is refused with E_POLICY naming the entry', async () => {
    const file = join(dir, 'policy.json');
    await writeFile(file, JSON.stringify({ policy: 1, deniedPermissions: ['net:listen'] }));
    // Not a user's run: the policy under test (a user's comes from the system file, docs/admin.md).
    const error = await rejection(loadPolicy({ env: { ARCOTHEON_POLICY: file } }));
    expect(error).toMatchObject({ code: 'E_POLICY' });
    expect(error.message).toContain('has deniedPermissions entry "net:listen": "net:listen" is not a permission');
  });
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'adcap-patterns-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
