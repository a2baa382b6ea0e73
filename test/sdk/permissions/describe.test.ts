/** DESIGN §5: the plain-language text shown to users, and the UI's risk levels. */
import { describe, expect, it } from 'vitest';
import { describePermission, riskLevel, type RiskLevel } from '../../../sdk/src/permissions/index.js';

describe('describePermission', () => {
  it.each([
    ['fs:read:workspace', 'Read files in the folder you choose for each run'],
    ['fs:read:~/Documents', 'Read files in ~/Documents'],
    ['fs:read:/srv/data', 'Read files in /srv/data'],
    ['fs:write:workspace', 'Create, change and delete files in the folder you choose'],
    ['fs:write:~/Pictures/out', 'Create, change and delete files in ~/Pictures/out'],
    ['net:connect:api.example.com', 'Connect to api.example.com'],
    ['net:connect:api.example.com:8443', 'Connect to api.example.com on port 8443'],
    ['net:connect:*.example.com', 'Connect to any server under example.com'],
    ['net:connect', 'Connect to any server on the internet'],
    [
      'process:exec:git',
      "Run the program git on your computer; it runs in this tool's sandbox " +
        'and can read only what the tool can, not the folder it is installed in',
    ],
    ['env:read:GITHUB_TOKEN', 'Read the environment variable GITHUB_TOKEN (the app asks you for its value)'],
    ['storage:data', 'Keep its own data between runs'],
  ])('%s -> %s', (grant, text) => {
    expect(describePermission(grant)).toBe(text);
  });

  it('accepts a declared permission object and ignores its reason', () => {
    expect(describePermission({ id: 'net:connect', scope: 'api.example.com', reason: 'to call the API' })).toBe(
      'Connect to api.example.com',
    );
  });

  it('names the chosen workspace when the UI knows it', () => {
    expect(describePermission('fs:read:workspace', { workspaceLabel: '~/projects/site' })).toBe('Read files in ~/projects/site');
    expect(describePermission({ id: 'fs:write', scope: 'workspace' }, { workspaceLabel: 'the folder "site"' })).toBe(
      'Create, change and delete files in the folder "site"',
    );
    expect(describePermission('fs:read:~/Documents', { workspaceLabel: 'ignored' })).toBe('Read files in ~/Documents');
  });

  it('refuses a malformed grant string instead of describing it', () => {
    expect(() => describePermission('net:connect:https://x')).toThrow(/network scope/);
  });
});

describe('riskLevel', () => {
  it.each<[string, RiskLevel]>([
    ['storage:data', 'low'],
    ['fs:read:workspace', 'low'],
    ['fs:read:~/Documents', 'medium'],
    ['fs:read:/srv/data', 'medium'],
    ['fs:read:~/.ssh', 'high'],
    ['fs:read:~/.aws/credentials', 'high'],
    ['fs:write:workspace', 'medium'],
    ['fs:write:~/Documents/out', 'high'],
    ['net:connect:api.example.com', 'medium'],
    ['net:connect', 'high'],
    ['env:read:GITHUB_TOKEN', 'medium'],
    ['process:exec:git', 'high'],
  ])('%s is %s', (grant, level) => {
    expect(riskLevel(grant)).toBe(level);
  });
});
