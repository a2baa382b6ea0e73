/**
 * capability-1.json through validateManifest: each field family of DESIGN §3 accepts its valid forms
 * and refuses invalid ones with E_SCHEMA naming the JSON pointer and the failed keyword.
 */
import { describe, expect, it } from 'vitest';
import { validateManifest } from '../../../sdk/src/format/manifest.js';
import type { Manifest, Tool } from '../../../sdk/src/format/manifest-types.js';
import { captureAdcapError, cloneManifest, minimalManifest, nodeTool, resource } from '../../helpers/manifest-fixtures.js';

type Mutable = Record<string, unknown>;

/** A minimal manifest with `patch` applied to a plain-object copy (so tests can write invalid values). */
function withPatch(patch: (m: Mutable) => void, base: Manifest = minimalManifest()): Mutable {
  const m = cloneManifest(base) as unknown as Mutable;
  patch(m);
  return m;
}

function expectSchemaError(value: unknown, pointer: string, keyword: string): void {
  const error = captureAdcapError(() => validateManifest(value));
  expect(error.code).toBe('E_SCHEMA');
  expect(error.message).toContain(`${pointer || '/'} `);
  expect(error.message).toContain(`(${keyword})`);
  expect(error.details.pointer).toBe(pointer);
  expect(error.details.keyword).toBe(keyword);
}

const withTool = (tool: Mutable): Manifest => minimalManifest({ tools: [tool as unknown as Manifest['tools'] & never] });

describe('capability-1.json: format version (spec §14)', () => {
  it('accepts 1.0 and a later minor', () => {
    expect(() => validateManifest(minimalManifest())).not.toThrow();
    expect(() => validateManifest(minimalManifest({ adcap: '1.3' }))).not.toThrow();
  });
  it('refuses a newer major with E_VERSION_MAJOR before looking at the rest', () => {
    const error = captureAdcapError(() => validateManifest({ adcap: '2.0', whatever: true }));
    expect(error.code).toBe('E_VERSION_MAJOR');
    expect(error.message).toContain('2.0');
  });
  it('refuses major 0 with E_VERSION_MAJOR', () => {
    expect(captureAdcapError(() => validateManifest(minimalManifest({ adcap: '0.9' }))).code).toBe('E_VERSION_MAJOR');
  });
  it.each([['1'], ['1.0.0'], ['v1.0'], ['01.0'], [1]])('refuses the malformed adcap %j with E_SCHEMA', (adcap) => {
    expectSchemaError(
      withPatch((m) => (m.adcap = adcap)),
      '/adcap',
      'pattern',
    );
  });
  it('refuses a missing adcap and a non-object manifest', () => {
    expectSchemaError(
      withPatch((m) => delete m.adcap),
      '',
      'required',
    );
    expectSchemaError([], '', 'type');
    expectSchemaError(null, '', 'type');
  });
});

describe('capability-1.json: top level', () => {
  it('refuses unknown top-level fields but accepts vendor data under x', () => {
    const error = captureAdcapError(() => validateManifest(withPatch((m) => (m.homepageUrl = 'https://a.example'))));
    expect(error.code).toBe('E_SCHEMA');
    expect(error.message).toContain('"homepageUrl"');
    expect(error.message).toContain('"x"');
    expect(() => validateManifest(minimalManifest({ x: { acme: { anything: [1, 'two', { three: null }] } } }))).not.toThrow();
    expectSchemaError(
      withPatch((m) => (m.x = { 'Not A Vendor': 1 })),
      '/x',
      'pattern',
    );
  });
  it.each(['id', 'version', 'name', 'summary', 'files'])('requires %s', (field) => {
    expectSchemaError(
      withPatch((m) => delete m[field]),
      '',
      'required',
    );
  });
  it.each([['acme/demo'], ['a/b'], ['a1-b2/c-3-d'], [`${'a'.repeat(64)}/${'b'.repeat(64)}`]])('accepts the id %s', (id) => {
    expect(() => validateManifest(minimalManifest({ id }))).not.toThrow();
  });
  it.each([
    ['Acme/demo'],
    ['acme'],
    ['acme/demo/x'],
    ['acme//demo'],
    ['-acme/demo'],
    ['acme/demo-'],
    ['ac--me/demo'],
    ['acme_x/demo'],
    [`${'a'.repeat(65)}/b`],
  ])('refuses the id %s', (id) =>
    expectSchemaError(
      withPatch((m) => (m.id = id)),
      '/id',
      'pattern',
    ),
  );
  it.each([['1.0.0'], ['0.0.1'], ['1.2.3-beta.1'], ['1.2.3+build.5'], ['10.20.30-rc.1+meta']])('accepts the version %s', (version) => {
    expect(() => validateManifest(minimalManifest({ version }))).not.toThrow();
  });
  it.each([['1.0'], ['v1.0.0'], ['01.0.0'], ['1.0.0-'], ['1.0.0-01'], ['1.0.0 '], ['^1.0.0']])('refuses the version %s', (version) => {
    expectSchemaError(
      withPatch((m) => (m.version = version)),
      '/version',
      'pattern',
    );
  });
  it('limits name, summary, description and keywords', () => {
    expect(() =>
      validateManifest(
        minimalManifest({
          name: 'n'.repeat(80),
          summary: 's'.repeat(200),
          description: 'd'.repeat(8000),
          keywords: Array.from({ length: 20 }, (_, i) => `k${i}`),
        }),
      ),
    ).not.toThrow();
    expectSchemaError(
      withPatch((m) => (m.name = 'n'.repeat(81))),
      '/name',
      'maxLength',
    );
    expectSchemaError(
      withPatch((m) => (m.name = '')),
      '/name',
      'minLength',
    );
    expectSchemaError(
      withPatch((m) => (m.summary = 's'.repeat(201))),
      '/summary',
      'maxLength',
    );
    expectSchemaError(
      withPatch((m) => (m.summary = 'two\nlines')),
      '/summary',
      'pattern',
    );
    expectSchemaError(
      withPatch((m) => (m.description = 'd'.repeat(8001))),
      '/description',
      'maxLength',
    );
    expectSchemaError(
      withPatch((m) => (m.keywords = Array.from({ length: 21 }, (_, i) => `k${i}`))),
      '/keywords',
      'maxItems',
    );
    expectSchemaError(
      withPatch((m) => (m.keywords = ['a', 'a'])),
      '/keywords',
      'uniqueItems',
    );
  });
  it('requires https URLs without credentials for homepage and repository', () => {
    expect(() =>
      validateManifest(minimalManifest({ homepage: 'https://acme.example/demo', repository: 'https://github.com/acme/demo' })),
    ).not.toThrow();
    expectSchemaError(
      withPatch((m) => (m.homepage = 'http://acme.example')),
      '/homepage',
      'pattern',
    );
    expectSchemaError(
      withPatch((m) => (m.repository = 'git@github.com:acme/demo.git')),
      '/repository',
      'pattern',
    );
    expectSchemaError(
      withPatch((m) => (m.homepage = 'https://user:pw@acme.example/')),
      '/homepage',
      'pattern',
    );
  });
  it('accepts SPDX-like license expressions and refuses junk', () => {
    expect(() => validateManifest(minimalManifest({ license: 'Apache-2.0 OR MIT' }))).not.toThrow();
    expectSchemaError(
      withPatch((m) => (m.license = 'MIT; rm -rf /')),
      '/license',
      'pattern',
    );
  });
  it('requires package paths for icon and readme', () => {
    expectSchemaError(
      withPatch((m) => (m.icon = '/etc/icon.png')),
      '/icon',
      'pattern',
    );
    expectSchemaError(
      withPatch((m) => (m.readme = '../README.md')),
      '/readme',
      'pattern',
    );
  });
  it('refuses non-integer numbers anywhere (signed data holds integers only)', () => {
    expectSchemaError(
      withPatch((m) => (m.x = { acme: { ratio: 0.5 } })),
      '/x/acme/ratio',
      'integer',
    );
  });
});

describe('capability-1.json: files', () => {
  const file = { path: 'a.txt', sha256: 'a'.repeat(64), size: 3 };
  it('accepts executable flags', () => {
    expect(() => validateManifest(minimalManifest({ files: [{ ...file, executable: true }] }))).not.toThrow();
  });
  it.each([
    ['an absolute path', { ...file, path: '/a.txt' }, '/files/0/path', 'pattern'],
    ['a .. segment', { ...file, path: 'a/../b' }, '/files/0/path', 'pattern'],
    ['a . segment', { ...file, path: './a' }, '/files/0/path', 'pattern'],
    ['an empty segment', { ...file, path: 'a//b' }, '/files/0/path', 'pattern'],
    ['a backslash', { ...file, path: 'a\\b' }, '/files/0/path', 'pattern'],
    ['non-ASCII', { ...file, path: 'caf\u00e9' }, '/files/0/path', 'pattern'],
    ['a 241-byte path', { ...file, path: 'a'.repeat(241) }, '/files/0/path', 'maxLength'],
    ['an uppercase digest', { ...file, sha256: 'A'.repeat(64) }, '/files/0/sha256', 'pattern'],
    ['a short digest', { ...file, sha256: 'a'.repeat(63) }, '/files/0/sha256', 'pattern'],
    ['a negative size', { ...file, size: -1 }, '/files/0/size', 'minimum'],
    ['a string size', { ...file, size: '3' }, '/files/0/size', 'type'],
    ['an unknown field', { ...file, mode: 420 }, '/files/0', 'additionalProperties'],
  ])('refuses %s', (_label, entry, pointer, keyword) => {
    expectSchemaError(
      withPatch((m) => (m.files = [entry])),
      pointer,
      keyword,
    );
  });
  it('accepts a 240-byte path with spaces and punctuation', () => {
    const path = `dir with space/${'x'.repeat(240 - 'dir with space/'.length - 4)}.txt`;
    expect(path.length).toBe(240);
    expect(() => validateManifest(minimalManifest({ files: [{ ...file, path }] }))).not.toThrow();
  });
});

describe('capability-1.json: tools', () => {
  it('accepts node, python and binary runtimes with all optional fields', () => {
    const m = minimalManifest({
      permissions: [{ id: 'storage:data', reason: 'remember' }],
      resources: [resource('d')],
      tools: [
        nodeTool('a', {
          outputSchema: { type: 'object' },
          permissions: ['storage:data'],
          resources: ['d'],
          timeoutMs: 60_000,
          platforms: ['linux-x64', 'darwin-arm64'],
        }),
        nodeTool('b', { runtime: { type: 'python', entry: 'tools/b.py', version: '>=3.10' } }),
        nodeTool('c', { runtime: { type: 'binary', entries: { 'linux-x64': 'bin/c', 'win32-x64': 'bin/c.exe' } } }),
      ],
    });
    expect(() => validateManifest(m)).not.toThrow();
  });
  it.each([['wasm'], ['http']])('accepts the reserved runtime %s (refused only at run time)', (type) => {
    expect(() =>
      validateManifest(withTool({ ...nodeTool('a'), runtime: { type, module: 'x.wasm', url: 'https://x.example' } })),
    ).not.toThrow();
  });
  it.each([
    ['an unknown runtime', { runtime: { type: 'deno', entry: 'a.ts' } }, '/tools/0/runtime/type', 'enum'],
    ['a node runtime without entry', { runtime: { type: 'node' } }, '/tools/0/runtime', 'required'],
    ['a node runtime with entries', { runtime: { type: 'node', entry: 'a.mjs', entries: {} } }, '/tools/0/runtime', 'additionalProperties'],
    ['a binary runtime without entries', { runtime: { type: 'binary', entry: 'a' } }, '/tools/0/runtime', 'required'],
    ['a binary runtime with no platform', { runtime: { type: 'binary', entries: {} } }, '/tools/0/runtime/entries', 'minProperties'],
    [
      'a binary runtime with a bad platform',
      { runtime: { type: 'binary', entries: { linux: 'bin/a' } } },
      '/tools/0/runtime/entries',
      'pattern',
    ],
    ['an mcp runtime without a server', { runtime: { type: 'mcp', tool: 'echo' } }, '/tools/0/runtime', 'required'],
    [
      'an mcp runtime without a tool',
      { runtime: { type: 'mcp', server: { type: 'node', entry: 's.js' } } },
      '/tools/0/runtime',
      'required',
    ],
    [
      'an mcp server of an unknown type',
      { runtime: { type: 'mcp', server: { type: 'deno', entry: 's.ts' }, tool: 'echo' } },
      '/tools/0/runtime/server/type',
      'enum',
    ],
    [
      'an mcp server with a command of its own',
      { runtime: { type: 'mcp', server: { type: 'node', entry: 's.js', command: 'sh' }, tool: 'echo' } },
      '/tools/0/runtime/server',
      'additionalProperties',
    ],
    [
      'an mcp tool name with a space',
      { runtime: { type: 'mcp', server: { type: 'node', entry: 's.js' }, tool: 'read file' } },
      '/tools/0/runtime/tool',
      'pattern',
    ],
    [
      'an mcp server argument with a newline',
      { runtime: { type: 'mcp', server: { type: 'node', entry: 's.js', args: ['a\nb'] }, tool: 'echo' } },
      '/tools/0/runtime/server/args/0',
      'pattern',
    ],
    ['an uppercase name', { name: 'Echo' }, '/tools/0/name', 'pattern'],
    ['a hyphenated name', { name: 'my-tool' }, '/tools/0/name', 'pattern'],
    ['a missing description', { description: undefined }, '/tools/0', 'required'],
    ['a boolean inputSchema', { inputSchema: true }, '/tools/0/inputSchema', 'type'],
    ['an inputSchema that is not a JSON Schema', { inputSchema: { type: 'text' } }, '/tools/0/inputSchema/type', 'enum'],
    ['an inputSchema with a dangling $ref', { inputSchema: { $ref: '#/$defs/missing' } }, '/tools/0/inputSchema', 'compile'],
    ['an inputSchema with a remote $ref', { inputSchema: { $ref: 'https://schemas.example/x.json' } }, '/tools/0/inputSchema', 'compile'],
    ['a float in outputSchema', { outputSchema: { type: 'number', multipleOf: 0.01 } }, '/tools/0/outputSchema/multipleOf', 'integer'],
    ['an unknown permission id', { permissions: ['fs:delete'] }, '/tools/0/permissions/0', 'pattern'],
    ['a repeated permission', { permissions: ['storage:data', 'storage:data'] }, '/tools/0/permissions', 'uniqueItems'],
    ['a zero timeout', { timeoutMs: 0 }, '/tools/0/timeoutMs', 'minimum'],
    ['a fractional timeout', { timeoutMs: 1.5 }, '/tools/0/timeoutMs', 'integer'],
    ['an unknown field', { sandbox: false }, '/tools/0', 'additionalProperties'],
  ])('refuses %s', (_label, patch, pointer, keyword) => {
    const tool: Mutable = { ...nodeTool('a'), ...patch };
    for (const key of Object.keys(tool)) if (tool[key] === undefined) delete tool[key];
    expectSchemaError(withTool(tool), pointer, keyword);
  });
  it('accepts mcp runtimes with node, python and binary servers (docs/spec/mcp-runtime.md)', () => {
    const servers: Array<[Record<string, unknown>, string]> = [
      [{ type: 'node', entry: 'server/index.js', version: '>=20', args: ['${dir}/data'], env: { LOG: 'quiet' } }, 'server/index.js'],
      [{ type: 'python', entry: 'server/main.py' }, 'server/main.py'],
      [{ type: 'binary', entries: { 'linux-x64': 'server/bin' } }, 'server/bin'],
    ];
    for (const [server, file] of servers) {
      const files = { [file]: 'x' };
      const m = minimalManifest(
        { tools: [{ ...nodeTool('a'), runtime: { type: 'mcp', server, tool: 'echo' } as Tool['runtime'] }] },
        files,
      );
      expect(() => validateManifest(m), file).not.toThrow();
    }
  });
  it('lets one manifest use the same $id in two tool schemas', () => {
    const schema = { $id: 'https://acme.example/input.json', type: 'object' };
    expect(() =>
      validateManifest(minimalManifest({ tools: [nodeTool('a', { inputSchema: schema }), nodeTool('b', { inputSchema: { ...schema } })] })),
    ).not.toThrow();
    expect(() => validateManifest(minimalManifest({ tools: [nodeTool('a', { inputSchema: { ...schema } })] }))).not.toThrow();
  });
});

describe('capability-1.json: skills, workflows, knowledge', () => {
  it('refuses extra fields and bad paths', () => {
    expectSchemaError(
      withPatch((m) => (m.skills = [{ path: 'skills/a', name: 'a' }])),
      '/skills/0',
      'additionalProperties',
    );
    expectSchemaError(
      withPatch((m) => (m.workflows = [{ path: '/workflows/a.json' }])),
      '/workflows/0/path',
      'pattern',
    );
  });
  it('accepts knowledge with a path or a resource', () => {
    expect(() =>
      validateManifest(
        minimalManifest({
          resources: [resource('r')],
          knowledge: [
            { id: 'a', kind: 'sqlite', path: 'k/a.db', description: 'db' },
            { id: 'b', kind: 'index', resource: 'r' },
          ],
        }),
      ),
    ).not.toThrow();
  });
  it('refuses knowledge with both or neither of path and resource, and unknown kinds', () => {
    expectSchemaError(
      withPatch((m) => (m.knowledge = [{ id: 'a', kind: 'jsonl', path: 'k/a.jsonl', resource: 'r' }])),
      '/knowledge/0',
      'oneOf',
    );
    expectSchemaError(
      withPatch((m) => (m.knowledge = [{ id: 'a', kind: 'jsonl' }])),
      '/knowledge/0',
      'oneOf',
    );
    expectSchemaError(
      withPatch((m) => (m.knowledge = [{ id: 'a', kind: 'pdf', path: 'k/a.pdf' }])),
      '/knowledge/0/kind',
      'enum',
    );
  });
});

describe('capability-1.json: resources', () => {
  it('accepts every optional field', () => {
    expect(() =>
      validateManifest(
        minimalManifest({
          resources: [
            resource('r', { access: 'entitled', entitlement: 'acme:pro', license: 'CC-BY-4.0', lazy: false, format: 'shardset' }),
          ],
        }),
      ),
    ).not.toThrow();
  });
  it.each([
    ['an http source', { sources: ['http://data.example.com/r'] }, '/resources/0/sources/0', 'pattern'],
    ['no sources', { sources: [] }, '/resources/0/sources', 'minItems'],
    ['a bad digest', { sha256: 'xyz' }, '/resources/0/sha256', 'pattern'],
    ['a fractional size', { size: 1.5 }, '/resources/0/size', 'integer'],
    ['an unknown access', { access: 'private' }, '/resources/0/access', 'enum'],
    ['an unknown format', { format: 'zip' }, '/resources/0/format', 'enum'],
    ['a string lazy', { lazy: 'yes' }, '/resources/0/lazy', 'type'],
    ['a bad id', { id: 'Data Set' }, '/resources/0/id', 'pattern'],
  ])('refuses %s', (_label, patch, pointer, keyword) => {
    expectSchemaError(
      withPatch((m) => (m.resources = [{ ...resource('r'), ...patch }])),
      pointer,
      keyword,
    );
  });
});

describe('capability-1.json: permissions, adapters, dependencies, compat, distribution', () => {
  it('accepts the six permission ids and refuses others', () => {
    const ids = ['fs:read:workspace', 'fs:write:workspace', 'net:connect', 'process:exec:git', 'env:read:TOKEN', 'storage:data'];
    const permissions = ids.map((g) => {
      const [ns, verb, ...rest] = g.split(':');
      return rest.length > 0 ? { id: `${ns}:${verb}`, scope: rest.join(':'), reason: 'r' } : { id: `${ns}:${verb}`, reason: 'r' };
    });
    expect(() => validateManifest(withPatch((m) => (m.permissions = permissions)))).not.toThrow();
    expectSchemaError(
      withPatch((m) => (m.permissions = [{ id: 'net:listen', reason: 'r' }])),
      '/permissions/0/id',
      'enum',
    );
    expectSchemaError(
      withPatch((m) => (m.permissions = [{ id: 'storage:data' }])),
      '/permissions/0',
      'required',
    );
    expectSchemaError(
      withPatch((m) => (m.permissions = [{ id: 'storage:data', reason: '' }])),
      '/permissions/0/reason',
      'minLength',
    );
  });
  it('checks adapters (spec §10)', () => {
    expectSchemaError(
      withPatch((m) => (m.adapters = [{ id: 'm', kind: 'llm', provider: 'p', protocol: 'x' }])),
      '/adapters/0/kind',
      'enum',
    );
    expectSchemaError(
      withPatch((m) => (m.adapters = [{ id: 'm', kind: 'model', provider: 'p' }])),
      '/adapters/0',
      'required',
    );
    // spec §10: endpoints never contain credentials.
    expectSchemaError(
      withPatch(
        (m) => (m.adapters = [{ id: 'm', kind: 'model', provider: 'p', protocol: 'x', endpoint: 'https://key:secret@api.example.com' }]),
      ),
      '/adapters/0/endpoint',
      'pattern',
    );
  });
  it('checks dependency keys and values', () => {
    expectSchemaError(
      withPatch((m) => (m.dependencies = { 'not-an-id': '^1.0.0' })),
      '/dependencies',
      'pattern',
    );
    expectSchemaError(
      withPatch((m) => (m.dependencies = { 'acme/base': 1 })),
      '/dependencies/acme~1base',
      'type',
    );
  });
  it('checks compat', () => {
    expect(() =>
      validateManifest(minimalManifest({ compat: { platforms: ['any'], agents: { agentdock: '>=1' }, runtimes: { node: '>=22' } } })),
    ).not.toThrow();
    expectSchemaError(
      withPatch((m) => (m.compat = { platforms: ['linux'] })),
      '/compat/platforms/0',
      'anyOf',
    );
    expectSchemaError(
      withPatch((m) => (m.compat = { platforms: [] })),
      '/compat/platforms',
      'minItems',
    );
    expectSchemaError(
      withPatch((m) => (m.compat = { runtimes: { ruby: '>=3' } })),
      '/compat/runtimes',
      'additionalProperties',
    );
    expectSchemaError(
      withPatch((m) => (m.compat = { os: 'linux' })),
      '/compat',
      'additionalProperties',
    );
  });
  it('checks distribution', () => {
    expect(() => validateManifest(minimalManifest({ distribution: { tier: 'free', access: 'public' } }))).not.toThrow();
    expectSchemaError(
      withPatch((m) => (m.distribution = { tier: 'enterprise' })),
      '/distribution/tier',
      'enum',
    );
    expectSchemaError(
      withPatch((m) => (m.distribution = { access: 'secret' })),
      '/distribution/access',
      'enum',
    );
  });
});

describe('E_SCHEMA messages', () => {
  it('list the first few problems and say how many more there are', () => {
    const error = captureAdcapError(() =>
      validateManifest(withPatch((m) => Object.assign(m, { id: 'X', version: 'x', name: '', summary: '', homepage: 'ftp://a' }))),
    );
    expect(error.code).toBe('E_SCHEMA');
    expect(error.message).toMatch(/; and \d+ more\.$/);
    expect((error.details.problems as unknown[]).length).toBe(3);
  });
});
