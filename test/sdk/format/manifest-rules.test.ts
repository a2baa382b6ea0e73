/**
 * One test per semantic rule of validateManifest (spec §3.2, §10, §11, DESIGN §3/§5): each rule has
 * a manifest that passes and one that fails with E_SEMANTIC naming the rule and the JSON pointer.
 */
import { describe, expect, it } from 'vitest';
import { MANIFEST_RULES, validateManifest, type ManifestRule } from '../../../sdk/src/format/manifest.js';
import type { Manifest } from '../../../sdk/src/format/manifest-types.js';
import {
  captureAdcapError,
  fileEntry,
  FIXTURE_ID,
  minimalManifest,
  nodeTool,
  resource,
  sortFiles,
} from '../../helpers/manifest-fixtures.js';

interface RuleCase {
  name: string;
  ok: () => Manifest;
  bad: () => Manifest;
  pointer: string;
}

const perm = (id: string, scope?: string) =>
  (scope === undefined ? { id, reason: 'needed' } : { id, scope, reason: 'needed' }) as NonNullable<Manifest['permissions']>[number];

/** An mcp tool (docs/spec/mcp-runtime.md) whose server gets `env`, declaring `grants`. */
function mcpManifest(env: Record<string, string>, grants: string[]): Manifest {
  const declared = grants.map((g) => {
    const [ns = '', verb = '', ...scope] = g.split(':');
    return perm(`${ns}:${verb}`, scope.length === 0 ? undefined : scope.join(':'));
  });
  return minimalManifest(
    {
      tools: [
        {
          name: 'echo',
          description: 'The echo tool of an MCP server.',
          runtime: { type: 'mcp', server: { type: 'node', entry: 'server/index.js', env }, tool: 'echo' },
          inputSchema: { type: 'object' },
          permissions: grants,
        },
      ],
      ...(declared.length === 0 ? {} : { permissions: declared }),
    },
    { 'server/index.js': '// server\n' },
  );
}

const cases: Record<ManifestRule, RuleCase[]> = {
  'unique-ids': [
    {
      name: 'tools by name',
      ok: () => minimalManifest({ tools: [nodeTool('a'), nodeTool('b')] }),
      bad: () => minimalManifest({ tools: [nodeTool('a'), nodeTool('a')] }),
      pointer: '/tools/1',
    },
    {
      name: 'resources',
      ok: () => minimalManifest({ resources: [resource('a'), resource('b')] }),
      bad: () => minimalManifest({ resources: [resource('a'), resource('a')] }),
      pointer: '/resources/1',
    },
    {
      name: 'knowledge',
      ok: () =>
        minimalManifest({
          knowledge: [
            { id: 'a', kind: 'markdown', path: 'k/a.md' },
            { id: 'b', kind: 'markdown', path: 'k/b.md' },
          ],
        }),
      bad: () =>
        minimalManifest({
          knowledge: [
            { id: 'a', kind: 'markdown', path: 'k/a.md' },
            { id: 'a', kind: 'markdown', path: 'k/b.md' },
          ],
        }),
      pointer: '/knowledge/1',
    },
    {
      name: 'adapters',
      ok: () =>
        minimalManifest({
          adapters: [
            { id: 'a', kind: 'model', provider: 'p', protocol: 'openai' },
            { id: 'b', kind: 'model', provider: 'p', protocol: 'openai' },
          ],
        }),
      bad: () =>
        minimalManifest({
          adapters: [
            { id: 'a', kind: 'model', provider: 'p', protocol: 'openai' },
            { id: 'a', kind: 'model', provider: 'q', protocol: 'openai' },
          ],
        }),
      pointer: '/adapters/1',
    },
    {
      name: 'workflows by path',
      ok: () => minimalManifest({ workflows: [{ path: 'workflows/a.json' }, { path: 'workflows/b.json' }] }),
      bad: () => minimalManifest({ workflows: [{ path: 'workflows/a.json' }, { path: 'workflows/a.json' }] }),
      pointer: '/workflows/1',
    },
    {
      name: 'skills by path',
      ok: () => minimalManifest({ skills: [{ path: 'skills/a' }, { path: 'skills/b' }] }),
      bad: () => minimalManifest({ skills: [{ path: 'skills/a' }, { path: 'skills/a' }] }),
      pointer: '/skills/1',
    },
    {
      name: 'permissions by id and scope',
      ok: () => minimalManifest({ permissions: [perm('net:connect', 'a.example.com'), perm('net:connect', 'b.example.com')] }),
      bad: () => minimalManifest({ permissions: [perm('net:connect', 'a.example.com'), perm('net:connect', 'a.example.com')] }),
      pointer: '/permissions/1',
    },
    {
      name: 'files by path',
      ok: () => minimalManifest({ files: [fileEntry('a.txt'), fileEntry('b.txt')] }),
      bad: () => minimalManifest({ files: [fileEntry('a.txt'), fileEntry('a.txt', 'other')] }),
      pointer: '/files/1',
    },
  ],
  'files-reserved': [
    {
      name: 'capability.json',
      ok: () => minimalManifest({ files: [fileEntry('docs/capability.json')] }),
      bad: () => minimalManifest({ files: [fileEntry('capability.json')] }),
      pointer: '/files/0/path',
    },
    {
      name: 'SIGNATURE.json',
      ok: () => minimalManifest({ files: [fileEntry('docs/SIGNATURE.json')] }),
      bad: () => minimalManifest({ files: [fileEntry('SIGNATURE.json')] }),
      pointer: '/files/0/path',
    },
  ],
  'files-sorted': [
    {
      name: 'plain order',
      ok: () => minimalManifest({ files: [fileEntry('a.txt'), fileEntry('b.txt')] }),
      bad: () => minimalManifest({ files: [fileEntry('b.txt'), fileEntry('a.txt')] }),
      pointer: '/files/1/path',
    },
    // Byte order puts "B" (0x42) before "a" (0x61), unlike a locale-aware sort.
    {
      name: 'byte order, not locale order',
      ok: () => minimalManifest({ files: [fileEntry('B.txt'), fileEntry('a.txt')] }),
      bad: () => minimalManifest({ files: [fileEntry('a.txt'), fileEntry('B.txt')] }),
      pointer: '/files/1/path',
    },
    {
      name: 'a path before the longer paths it begins',
      ok: () => minimalManifest({ files: [fileEntry('a'), fileEntry('a.txt')] }),
      bad: () => minimalManifest({ files: [fileEntry('a.txt'), fileEntry('a')] }),
      pointer: '/files/1/path',
    },
  ],
  'file-listed': [
    {
      name: 'the entry of an mcp server',
      ok: () => mcpManifest({}, []),
      bad: () => ({ ...mcpManifest({}, []), files: [] }),
      pointer: '/tools/0/runtime/server/entry',
    },
    {
      name: 'node entry',
      ok: () => minimalManifest({ tools: [nodeTool('a')] }),
      bad: () => minimalManifest({ tools: [nodeTool('a')], files: [] }),
      pointer: '/tools/0/runtime/entry',
    },
    {
      name: 'binary entries',
      ok: () => minimalManifest({ tools: [nodeTool('a', { runtime: { type: 'binary', entries: { 'linux-x64': 'bin/a-linux' } } })] }),
      bad: () =>
        minimalManifest({
          tools: [nodeTool('a', { runtime: { type: 'binary', entries: { 'linux-x64': 'bin/a-linux' } } })],
          files: [fileEntry('bin/a-darwin')],
        }),
      pointer: '/tools/0/runtime/entries/linux-x64',
    },
    {
      name: 'skill SKILL.md',
      ok: () => minimalManifest({ skills: [{ path: 'skills/demo' }] }),
      bad: () => minimalManifest({ skills: [{ path: 'skills/demo' }], files: [fileEntry('skills/demo/README.md')] }),
      pointer: '/skills/0/path',
    },
    {
      name: 'workflow',
      ok: () => minimalManifest({ workflows: [{ path: 'workflows/a.json' }] }),
      bad: () => minimalManifest({ workflows: [{ path: 'workflows/a.json' }], files: [] }),
      pointer: '/workflows/0/path',
    },
    {
      name: 'knowledge file',
      ok: () => minimalManifest({ knowledge: [{ id: 'k', kind: 'markdown', path: 'knowledge/k.md' }] }),
      bad: () =>
        minimalManifest({ knowledge: [{ id: 'k', kind: 'markdown', path: 'knowledge/k.md' }], files: [fileEntry('knowledge/k.md.bak')] }),
      pointer: '/knowledge/0/path',
    },
    {
      name: 'knowledge folder',
      ok: () => minimalManifest({ knowledge: [{ id: 'k', kind: 'index', path: 'index' }], files: [fileEntry('index/part-0.bin')] }),
      bad: () => minimalManifest({ knowledge: [{ id: 'k', kind: 'index', path: 'index' }], files: [fileEntry('index-old/part-0.bin')] }),
      pointer: '/knowledge/0/path',
    },
    {
      name: 'icon',
      ok: () => minimalManifest({ icon: 'icon.png' }),
      bad: () => minimalManifest({ icon: 'icon.png', files: [] }),
      pointer: '/icon',
    },
    {
      name: 'readme',
      ok: () => minimalManifest({ readme: 'README.md' }),
      bad: () => minimalManifest({ readme: 'README.md', files: [fileEntry('readme.md')] }),
      pointer: '/readme',
    },
  ],
  'permission-scope': [
    {
      name: 'fs needs a scope',
      ok: () => minimalManifest({ permissions: [perm('fs:read', 'workspace')] }),
      bad: () => minimalManifest({ permissions: [perm('fs:read')] }),
      pointer: '/permissions/0',
    },
    {
      name: 'fs relative path',
      ok: () => minimalManifest({ permissions: [perm('fs:read', '~/Documents')] }),
      bad: () => minimalManifest({ permissions: [perm('fs:read', 'Documents')] }),
      pointer: '/permissions/0',
    },
    {
      name: 'fs dot-dot',
      ok: () => minimalManifest({ permissions: [perm('fs:read', '/srv/data')] }),
      bad: () => minimalManifest({ permissions: [perm('fs:read', '/srv/../etc')] }),
      pointer: '/permissions/0',
    },
    {
      name: 'net host',
      ok: () => minimalManifest({ permissions: [perm('net:connect', '*.example.com:443')] }),
      bad: () => minimalManifest({ permissions: [perm('net:connect', 'https://example.com')] }),
      pointer: '/permissions/0',
    },
    {
      name: 'env name',
      ok: () => minimalManifest({ permissions: [perm('env:read', 'GITHUB_TOKEN')] }),
      bad: () => minimalManifest({ permissions: [perm('env:read', 'GITHUB TOKEN')] }),
      pointer: '/permissions/0',
    },
    {
      name: 'process program',
      ok: () => minimalManifest({ permissions: [perm('process:exec', 'git')] }),
      bad: () => minimalManifest({ permissions: [perm('process:exec', '/usr/bin/git')] }),
      pointer: '/permissions/0',
    },
    {
      name: 'storage no scope',
      ok: () => minimalManifest({ permissions: [perm('storage:data')] }),
      bad: () => minimalManifest({ permissions: [perm('storage:data', 'cache')] }),
      pointer: '/permissions/0',
    },
  ],
  'fs-write-own-dir': [
    {
      name: 'the Arcotheon data folder',
      ok: () => minimalManifest({ permissions: [perm('fs:write', '~/Documents/out')] }),
      bad: () => minimalManifest({ permissions: [perm('fs:write', '~/.local/share/arcotheon/packages/acme/demo')] }),
      pointer: '/permissions/0/scope',
    },
    {
      name: 'an ancestor of the default data folders',
      ok: () => minimalManifest({ permissions: [perm('fs:write', '~/.local/state-of-art')] }),
      bad: () => minimalManifest({ permissions: [perm('fs:write', '~/.local/share')] }),
      pointer: '/permissions/0/scope',
    },
    {
      name: 'a whole home folder',
      ok: () => minimalManifest({ permissions: [perm('fs:write', '/home/alice/out')] }),
      bad: () => minimalManifest({ permissions: [perm('fs:write', '/home/alice')] }),
      pointer: '/permissions/0/scope',
    },
    {
      name: 'reading the data folder is not writing it',
      ok: () => minimalManifest({ permissions: [perm('fs:read', '~/.local/share/arcotheon')] }),
      bad: () => minimalManifest({ permissions: [perm('fs:write', '~/Library/Application Support/Arcotheon')] }),
      pointer: '/permissions/0/scope',
    },
  ],
  'tool-permission-declared': [
    {
      name: 'undeclared id',
      ok: () => minimalManifest({ permissions: [perm('storage:data')], tools: [nodeTool('a', { permissions: ['storage:data'] })] }),
      bad: () =>
        minimalManifest({
          permissions: [perm('storage:data')],
          tools: [nodeTool('a', { permissions: ['storage:data', 'env:read:HOME'] })],
        }),
      pointer: '/tools/0/permissions/1',
    },
    {
      name: 'scope must match the declared one',
      ok: () =>
        minimalManifest({
          permissions: [perm('net:connect', 'api.example.com')],
          tools: [nodeTool('a', { permissions: ['net:connect:api.example.com'] })],
        }),
      bad: () =>
        minimalManifest({
          permissions: [perm('net:connect', 'api.example.com')],
          tools: [nodeTool('a', { permissions: ['net:connect:evil.example.com'] })],
        }),
      pointer: '/tools/0/permissions/0',
    },
  ],
  'resource-exists': [
    {
      name: 'tool resources',
      ok: () => minimalManifest({ resources: [resource('d')], tools: [nodeTool('a', { resources: ['d'] })] }),
      bad: () => minimalManifest({ resources: [resource('d')], tools: [nodeTool('a', { resources: ['e'] })] }),
      pointer: '/tools/0/resources/0',
    },
    {
      name: 'knowledge.resource',
      ok: () => minimalManifest({ resources: [resource('d')], knowledge: [{ id: 'k', kind: 'jsonl', resource: 'd' }] }),
      bad: () => minimalManifest({ knowledge: [{ id: 'k', kind: 'jsonl', resource: 'd' }] }),
      pointer: '/knowledge/0/resource',
    },
    {
      name: 'adapter.resource',
      ok: () =>
        minimalManifest({
          resources: [resource('w')],
          adapters: [{ id: 'm', kind: 'model', provider: 'local', protocol: 'gguf', resource: 'w' }],
        }),
      bad: () =>
        minimalManifest({
          resources: [resource('x')],
          adapters: [{ id: 'm', kind: 'model', provider: 'local', protocol: 'gguf', resource: 'w' }],
        }),
      pointer: '/adapters/0/resource',
    },
  ],
  'semver-range': [
    {
      name: 'dependencies',
      ok: () => minimalManifest({ dependencies: { 'acme/base': '^1.2.0 || >=3' } }),
      bad: () => minimalManifest({ dependencies: { 'acme/base': 'latest' } }),
      pointer: '/dependencies/acme~1base',
    },
    {
      name: 'compat.agents',
      ok: () => minimalManifest({ compat: { agents: { agentdock: '>=2.1.0' } } }),
      bad: () => minimalManifest({ compat: { agents: { agentdock: '>=two' } } }),
      pointer: '/compat/agents/agentdock',
    },
    {
      name: 'compat.runtimes',
      ok: () => minimalManifest({ compat: { runtimes: { python: '>=3.10' } } }),
      bad: () => minimalManifest({ compat: { runtimes: { python: '3.10 ~~ 4' } } }),
      pointer: '/compat/runtimes/python',
    },
    {
      name: 'runtime.version',
      ok: () => minimalManifest({ tools: [nodeTool('a', { runtime: { type: 'node', entry: 'tools/a.mjs', version: '>=20' } })] }),
      bad: () => minimalManifest({ tools: [nodeTool('a', { runtime: { type: 'node', entry: 'tools/a.mjs', version: 'node20' } })] }),
      pointer: '/tools/0/runtime/version',
    },
  ],
  'entitlement-named': [
    {
      name: 'distribution',
      ok: () => minimalManifest({ distribution: { tier: 'pro', access: 'entitled', entitlement: 'acme-pro' } }),
      bad: () => minimalManifest({ distribution: { tier: 'pro', access: 'entitled' } }),
      pointer: '/distribution',
    },
    {
      name: 'resources',
      ok: () => minimalManifest({ resources: [resource('d', { access: 'entitled', entitlement: 'acme-data' })] }),
      bad: () => minimalManifest({ resources: [resource('d', { access: 'entitled' })] }),
      pointer: '/resources/0',
    },
  ],
  'adapter-net-permission': [
    {
      name: 'a scoped net:connect',
      ok: () =>
        minimalManifest({
          permissions: [perm('net:connect', 'api.example.com')],
          adapters: [{ id: 'm', kind: 'inference-backend', provider: 'acme', protocol: 'openai', endpoint: 'https://api.example.com/v1' }],
        }),
      bad: () =>
        minimalManifest({
          permissions: [perm('net:connect', 'other.example.com')],
          adapters: [{ id: 'm', kind: 'inference-backend', provider: 'acme', protocol: 'openai', endpoint: 'https://api.example.com/v1' }],
        }),
      pointer: '/adapters/0/endpoint',
    },
    {
      name: 'no net:connect at all',
      ok: () =>
        minimalManifest({
          permissions: [perm('net:connect')],
          adapters: [{ id: 'm', kind: 'model', provider: 'acme', protocol: 'openai', endpoint: 'https://api.example.com' }],
        }),
      bad: () =>
        minimalManifest({
          adapters: [{ id: 'm', kind: 'model', provider: 'acme', protocol: 'openai', endpoint: 'https://api.example.com' }],
        }),
      pointer: '/adapters/0/endpoint',
    },
    {
      name: 'the port counts',
      ok: () =>
        minimalManifest({
          permissions: [perm('net:connect', 'localhost:11434')],
          adapters: [{ id: 'm', kind: 'inference-backend', provider: 'ollama', protocol: 'ollama', endpoint: 'http://localhost:11434' }],
        }),
      bad: () =>
        minimalManifest({
          permissions: [perm('net:connect', 'localhost:443')],
          adapters: [{ id: 'm', kind: 'inference-backend', provider: 'ollama', protocol: 'ollama', endpoint: 'http://localhost:11434' }],
        }),
      pointer: '/adapters/0/endpoint',
    },
  ],
  'mcp-template': [
    {
      name: '${env.NAME} needs env:read:NAME',
      ok: () => mcpManifest({ API_KEY: '${env.API_KEY}' }, ['env:read:API_KEY']),
      bad: () => mcpManifest({ API_KEY: '${env.API_KEY}' }, []),
      pointer: '/tools/0/runtime/server/env/API_KEY',
    },
    {
      name: '${workspace} needs a workspace grant',
      ok: () => mcpManifest({ ROOT: '${workspace}' }, ['fs:read:workspace']),
      bad: () => mcpManifest({ ROOT: '${workspace}' }, ['env:read:API_KEY']),
      pointer: '/tools/0/runtime/server/env/ROOT',
    },
    {
      name: 'the sandbox sets HOME and the proxy variables itself',
      ok: () => mcpManifest({ LOG_LEVEL: 'quiet' }, []),
      bad: () => mcpManifest({ HTTPS_PROXY: 'http://evil.example' }, []),
      pointer: '/tools/0/runtime/server/env/HTTPS_PROXY',
    },
    {
      name: 'only dir, workspace and env.NAME',
      ok: () => mcpManifest({ DATA: '${dir}/data' }, []),
      bad: () => mcpManifest({ DATA: '${user_config.data}' }, []),
      pointer: '/tools/0/runtime/server/env/DATA',
    },
  ],
  'no-self-dependency': [
    {
      name: 'own id',
      ok: () => minimalManifest({ dependencies: { 'acme/other': '^1.0.0' } }),
      bad: () => minimalManifest({ dependencies: { [FIXTURE_ID]: '^1.0.0' } }),
      pointer: '/dependencies/acme~1demo',
    },
  ],
};

describe('validateManifest semantic rules', () => {
  it('has passing and failing cases for every exported rule', () => {
    expect(Object.keys(cases).sort()).toEqual([...MANIFEST_RULES].sort());
    for (const rule of MANIFEST_RULES) expect(cases[rule].length).toBeGreaterThan(0);
  });

  for (const rule of MANIFEST_RULES) {
    describe(rule, () => {
      for (const c of cases[rule]) {
        it(`${c.name}: passes`, () => {
          const m = c.ok();
          expect(validateManifest(m)).toBe(m);
        });
        it(`${c.name}: fails with [${rule}] at ${c.pointer}`, () => {
          const error = captureAdcapError(() => validateManifest(c.bad()));
          expect(error.code).toBe('E_SEMANTIC');
          expect(error.details).toEqual({ rule, pointer: c.pointer });
          expect(error.message.startsWith(`[${rule}] ${c.pointer} `)).toBe(true);
        });
      }
    });
  }

  it('files: a manifest with sorted files also passes when they come from the fixture builder', () => {
    const files = sortFiles([fileEntry('z.txt'), fileEntry('A.txt'), fileEntry('m/a.txt'), fileEntry('m-a.txt')]);
    expect(files.map((f) => f.path)).toEqual(['A.txt', 'm-a.txt', 'm/a.txt', 'z.txt']);
    expect(() => validateManifest(minimalManifest({ files }))).not.toThrow();
  });
});
