// The call context (spec §7) and the runtimes (spec §7 "Runtimes"), under real bubblewrap:
// resources materialised through the cache and readable inside the sandbox, dependency
// directories, toolDataDir, a shard request answered, python and binary tools.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mirrorBlob } from '../../../sdk/src/registry/builder/mirror.js';
import { publishPackage } from '../../../sdk/src/registry/builder/publish.js';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { TestRegistry } from '../../helpers/test-registry.js';
import { TestServer } from '../../helpers/test-server.js';
import { trustingFetch } from '../../helpers/tls.js';
import { nodeTool, RunHome } from './run-fixture.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const words = Buffer.from('alpha\nbeta\n');
const shardA = Buffer.from('{"row":"a"}\n');
const shardB = Buffer.from('{"row":"b"}\n');
const map = Buffer.from(
  JSON.stringify({
    shards: [
      { path: 'shards/a.jsonl', sha256: sha(shardA), size: shardA.length },
      { path: 'shards/b.jsonl', sha256: sha(shardB), size: shardB.length },
    ],
    vocabulary: ['x'],
  }),
);

let h: RunHome;
let arc: Arcotheon;
let server: TestServer;

beforeAll(async () => {
  server = await TestServer.start();
  server.serveBytes('/data/words.txt', words);
  server.serveBytes('/set/map.json', map);
  server.serveBytes('/set/shards/a.jsonl', shardA);
  server.serveBytes('/set/shards/b.jsonl', shardB);
  h = await RunHome.create();
  // The test server is on 127.0.0.1, a private address: the host allows its origin explicitly
  // (publisher-chosen sources are public https or the installing registry).
  arc = h.arc({ fetch: trustingFetch(), sourceOrigins: [server.origin] });
  await h.install({ id: 'acme/lib', tools: [nodeTool('libecho', 'echo.mjs')], files: { 'tools/echo.mjs': 'echo.mjs' } }, arc);
  await h.install(
    {
      id: 'acme/data',
      dependencies: { 'acme/lib': '^1.0.0' },
      permissions: [{ id: 'storage:data', reason: 'remembers notes' }],
      resources: [
        { id: 'words', kind: 'dataset', sources: [server.url('/data/words.txt')], sha256: sha(words), size: words.length },
        { id: 'set', kind: 'dataset', format: 'shardset', sources: [server.url('/set/map.json')], sha256: sha(map), size: map.length },
      ],
      tools: [
        nodeTool('ctx', 'read-context.mjs', { resources: ['words'], permissions: ['storage:data'] }),
        nodeTool('shard', 'shard.mjs', { resources: ['set'] }),
        {
          name: 'py',
          description: 'Python echo.',
          runtime: { type: 'python', entry: 'tools/echo.py', version: '>=3.8' },
          inputSchema: { type: 'object' },
        },
        {
          name: 'bin',
          description: 'Shell echo.',
          runtime: { type: 'binary', entries: { 'linux-x64': 'bin/echo.sh', 'linux-arm64': 'bin/echo.sh' } },
          inputSchema: { type: 'object' },
        },
      ],
      files: {
        'tools/read-context.mjs': 'read-context.mjs',
        'tools/shard.mjs': 'shard.mjs',
        'tools/echo.py': 'echo.py',
        'bin/echo.sh': 'echo.sh',
      },
    },
    arc,
  );
});
afterAll(async () => {
  await h.remove();
  await server.close();
});

describe('the call context and runtimes', () => {
  it(
    'resources and dependencies in the context: cached resource files ' +
      'and dependency dirs are readable in the sandbox, toolDataDir writable',
    async () => {
      server.resetStats();
      const result = await runTool(arc, 'acme/data', 'ctx', {});
      const context = result.output['context'] as {
        resources: Record<string, string>;
        dependencies: Record<string, string>;
        toolDataDir: string;
      };
      expect(context.resources['words']).toBe(storeOf(arc).cache.pathFor(sha(words)));
      expect(context.dependencies).toEqual({ 'acme/lib': await arc.installedDir('acme/lib') });
      expect(context.toolDataDir).toBe(storeOf(arc).home.toolDataDir('acme/data', 'ctx'));
      expect(result.output['resources']).toEqual({ words: 'alpha\nbeta\n' });
      expect(result.output['dependencies']).toEqual({ 'acme/lib': 'acme/lib' });
      expect(result.output['toolData']).toBe('kept');
      expect(server.statsFor('/data/words.txt').requests).toBe(1);
      // Cached: the second run does not download again (spec §9).
      await runTool(arc, 'acme/data', 'ctx', {});
      expect(server.statsFor('/data/words.txt').requests).toBe(1);
    },
  );

  it('a shard request is answered with a verified shard the sandboxed tool can read; only that shard is fetched', async () => {
    server.resetStats();
    const result = await runTool(arc, 'acme/data', 'shard', { resource: 'set', path: 'shards/b.jsonl' });
    expect(result.output['content']).toBe('{"row":"b"}\n');
    expect(result.output['map']).toBe(map.toString());
    expect(server.statsFor('/set/shards/b.jsonl').requests).toBe(1);
    expect(server.statsFor('/set/shards/a.jsonl').requests).toBe(0);
  });

  it('a shard request for a path not in the map gets an error answer, not a crash', async () => {
    const result = await runTool(arc, 'acme/data', 'shard', { resource: 'set', path: 'shards/zzz.jsonl' });
    expect(String(result.output['error'])).toContain('E_NOT_FOUND');
  });

  it('python runtime: runs with python3 on PATH honouring runtime.version', async () => {
    const result = await runTool(arc, 'acme/data', 'py', { n: 1 });
    expect(result.output['echoed']).toEqual({ n: 1 });
    expect(String(result.output['python'])).toMatch(/^3\./);
  });

  it('binary runtime: runs entries[platform], an executable shell script', async () => {
    const result = await runTool(arc, 'acme/data', 'bin', { n: 2 });
    expect(result.output['shell']).toBe(true);
    expect((result.output['call'] as { input: unknown }).input).toEqual({ n: 2 });
  });

  it("resource mirror: a resource whose declared source is gone is fetched from the installing registry's blob mirror", async () => {
    const reg = await TestRegistry.create();
    const home = await RunHome.create();
    try {
      await reg.addPublisher('acme');
      const data = Buffer.from('mirrored bytes\n');
      const blobFile = join(home.root, 'blob.bin');
      await writeFile(blobFile, data);
      await mirrorBlob(reg.dir, blobFile, { sha256: sha(data), size: data.length });
      const file = await home.build(
        {
          id: 'acme/mirrored',
          resources: [{ id: 'words', kind: 'dataset', sources: [server.url('/gone/words.txt')], sha256: sha(data), size: data.length }],
          tools: [nodeTool('ctx', 'read-context.mjs', { resources: ['words'] })],
          files: { 'tools/read-context.mjs': 'read-context.mjs' },
        },
        [reg.keyOf('acme')],
      );
      await publishPackage(reg.dir, file);
      await reg.build();
      const marc = home.arc({
        fetch: trustingFetch(),
        sourceOrigins: [server.origin],
        remotes: [{ name: 'test', url: reg.v1Url, rootKeys: [reg.rootKey.publicKey] }],
      });
      await marc.install('acme/mirrored', { approve: () => true });
      server.resetStats();
      const result = await runTool(marc, 'acme/mirrored', 'ctx', {});
      expect(result.output['resources']).toEqual({ words: 'mirrored bytes\n' });
      expect(server.statsFor('/gone/words.txt').requests).toBe(1); // the declared source was tried first
    } finally {
      await reg.cleanup();
      await home.remove();
    }
  });
});
