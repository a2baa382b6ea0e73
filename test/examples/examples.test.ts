// The example capabilities and the bundled registry: built twice from source by the real
// build script (same keys, separate registries), checked for reproducibility, then installed from
// the built registry through the embedded-default-remote loader and the real install lifecycle,
// and every tool run through runTool under the platform sandbox with realistic inputs.
import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExamples, EXAMPLES_DIR, type BuildExamplesResult } from '../../examples/build.js';
import { isAdcapError } from '../../sdk/src/errors.js';
import type { Manifest } from '../../sdk/src/format/manifest-types.js';
import { EMBEDDED_REGISTRY_ENV, loadEmbeddedRemote, readEmbeddedRemote } from '../../sdk/src/registry/embedded.js';
import type { RemoteConfig } from '../../sdk/src/registry/remotes.js';
import { runTool } from '../../sdk/src/run/run-tool.js';
import { runWorkflow } from '../../sdk/src/run/workflow.js';
import { Arcotheon, type ArcotheonOptions } from '../../sdk/src/store/arcotheon.js';
import { readKeyFile } from '../../sdk/src/trust/keys.js';
import { verifyPackage } from '../../sdk/src/trust/package-signature.js';
import { storeOf } from '../../sdk/src/store/store-of.js';

const HOST = { agent: { id: 'arcotheon', version: '0.1.0' } } as const;
// The real interpreter, not a version-manager shim (pyenv's shim is a shell script that needs its
// own tree, which the sandbox does not expose).
const interpreters = { python: execFileSync('python3', ['-c', 'import sys; print(sys.executable)']).toString().trim() };
const approve = (): boolean => true;
// The example's entitled archive and resource need the host's authorisation (spec §12); this
// host grants it, as a signed-in Pro user's would.
const authorize = async (): Promise<{ headers: Record<string, string> }> => ({ headers: {} });

let temp: string;
let first: BuildExamplesResult;
let second: BuildExamplesResult;
let keysDir: string;
let remote: RemoteConfig;
let home: string;
let arc: Arcotheon;
let workspace: string;

function options(homeDir: string, extra: Partial<ArcotheonOptions> = {}): ArcotheonOptions {
  return { home: homeDir, host: HOST, remotes: [remote], authorize, limits: { lockWaitMs: 60_000 }, ...extra };
}

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'adcap-examples-'));
  keysDir = join(temp, 'keys');
  first = await buildExamples({ registryDir: join(temp, 'a', 'registry'), workDir: join(temp, 'a', 'work'), keysDir });
  second = await buildExamples({ registryDir: join(temp, 'b', 'registry'), workDir: join(temp, 'b', 'work'), keysDir });
  remote = (await readEmbeddedRemote(first.embeddedFile)) as RemoteConfig;
  home = join(temp, 'home');
  arc = new Arcotheon(options(home));
  await arc.install(
    [
      'acme/contract-review',
      'acme/csv-summary',
      'acme/data-report',
      'acme/github-repo',
      'arcotheon/commit-messages',
      'arcotheon/http-reference',
      'arcotheon/workspace-stats',
    ],
    { approve },
  );
  workspace = join(temp, 'workspace');
  await mkdir(join(workspace, 'src'), { recursive: true });
  await mkdir(join(workspace, 'node_modules', 'dep'), { recursive: true });
  await writeFile(
    join(workspace, 'src', 'app.ts'),
    '// TODO(ana): handle empty input\nexport const x = 1;\n// FIXME: remove the retry hack\n',
  );
  await writeFile(join(workspace, 'README.md'), 'Hello world\n\nTwo paragraphs here.\n');
  await writeFile(join(workspace, 'node_modules', 'dep', 'index.js'), '// TODO: never counted\n');
  await writeFile(join(workspace, 'logo.bin'), Buffer.from([0, 1, 2, 3]));
  await cp(join(EXAMPLES_DIR, 'acme-csv-summary', 'samples', 'sales.csv'), join(workspace, 'sales.csv'));
  await cp(join(EXAMPLES_DIR, 'acme-contract-review', 'samples', 'services-agreement.txt'), join(workspace, 'agreement.txt'));
}, 240_000);

afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

async function manifests(): Promise<Manifest[]> {
  return Promise.all(first.packages.map(async (p) => (await verifyPackage(p.file)).manifest));
}

describe('npm run examples (examples/build.ts)', () => {
  it('is reproducible: two builds give byte-identical archives and the same manifest digests', async () => {
    expect(first.packages.length).toBeGreaterThanOrEqual(10);
    expect(second.packages.map((p) => `${p.id}@${p.version}`)).toEqual(first.packages.map((p) => `${p.id}@${p.version}`));
    for (const [index, a] of first.packages.entries()) {
      const b = second.packages[index];
      expect(b?.manifestSha256).toBe(a.manifestSha256);
      expect(b?.archiveSha256).toBe(a.archiveSha256);
      expect((await readFile(b?.file ?? '')).equals(await readFile(a.file))).toBe(true);
    }
    expect(second.mirrored).toEqual(first.mirrored);
  });

  it('signs with keys kept outside the registry: no secret key in any registry file', async () => {
    const secrets = await Promise.all(
      ['root', 'arcotheon', 'acme'].map(async (name) => (await readKeyFile(join(keysDir, `${name}.key.json`))).secretKey),
    );
    const files = await listFiles(first.registryDir);
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) {
      const text = (await readFile(file)).toString('latin1');
      for (const secret of secrets) expect(text.includes(secret)).toBe(false);
    }
    expect(first.embedded).toEqual({
      name: 'examples',
      url: './v1/',
      rootKeys: [(await readKeyFile(join(keysDir, 'root.key.json'))).publicKey],
      minSequence: first.sequence,
      maxCatalogAgeMs: null,
    });
  });

  it('every example validates and is signed by its publisher, and together they exercise every part of the format', async () => {
    const all = await manifests();
    const tools = all.flatMap((m) => m.tools ?? []);
    const grants = new Set(all.flatMap((m) => (m.permissions ?? []).map((p) => p.id)));
    expect(all.some((m) => (m.skills ?? []).length > 0 && m.tools === undefined)).toBe(true);
    expect(new Set(tools.map((t) => t.runtime.type))).toEqual(new Set(['node', 'python']));
    expect(tools.every((t) => t.outputSchema !== undefined)).toBe(true);
    expect([...grants].sort()).toEqual(['env:read', 'fs:read', 'net:connect', 'storage:data']);
    expect(all.some((m) => (m.workflows ?? []).length > 0 && Object.keys(m.dependencies ?? {}).length > 0)).toBe(true);
    expect(all.some((m) => (m.resources ?? []).some((r) => r.format === 'shardset'))).toBe(true);
    expect(all.some((m) => (m.resources ?? []).some((r) => r.access === 'entitled'))).toBe(true);
    expect(new Set(all.flatMap((m) => (m.knowledge ?? []).map((k) => k.kind)))).toEqual(new Set(['markdown', 'index']));
    expect(all.some((m) => m.distribution?.tier === 'pro' && m.distribution.access === 'entitled')).toBe(true);
    expect(all.some((m) => (m.adapters ?? []).length > 0)).toBe(true);
    for (const m of all)
      for (const r of m.resources ?? []) for (const source of r.sources) expect(source.startsWith('https://')).toBe(true);
    const keys = {
      arcotheon: await readKeyFile(join(keysDir, 'arcotheon.key.json')),
      acme: await readKeyFile(join(keysDir, 'acme.key.json')),
    };
    for (const p of first.packages) {
      const key = keys[p.id.split('/')[0] as 'arcotheon' | 'acme'];
      const verified = await verifyPackage(p.file, { trusted: [{ keyId: key.keyId, publicKey: key.publicKey }], requireSignature: true });
      expect(verified.signedBy).toEqual([key.keyId]);
    }
  });

  it('mirrors every resource and shard by content address in v1/blobs/sha256/', async () => {
    const blobs = new Set(await readdir(join(first.registryDir, 'v1', 'blobs', 'sha256')));
    expect(first.mirrored.filter((m) => / shard (?!map)/.test(m.what)).length).toBe(8);
    for (const m of first.mirrored) expect(blobs.has(m.sha256)).toBe(true);
  });
});

describe('the embedded default remote', () => {
  it('is found through ARCOTHEON_EMBEDDED_REGISTRY (a folder or the pin file) as a file:// remote', async () => {
    const fromDir = await loadEmbeddedRemote({ [EMBEDDED_REGISTRY_ENV]: first.registryDir });
    const fromFile = await loadEmbeddedRemote({ [EMBEDDED_REGISTRY_ENV]: first.embeddedFile });
    expect(fromDir).toEqual(fromFile);
    expect(fromDir?.url).toBe(`file://${join(first.registryDir, 'v1')}/`);
    expect(fromDir?.maxCatalogAgeMs).toBeNull();
    expect(await loadEmbeddedRemote({ [EMBEDDED_REGISTRY_ENV]: '' })).toBeNull();
    await expect(loadEmbeddedRemote({ [EMBEDDED_REGISTRY_ENV]: join(temp, 'nowhere.json') })).rejects.toMatchObject({
      code: 'E_NOT_FOUND',
    });
  });

  it('never goes stale (maxCatalogAgeMs null), while a remote with the default age limit does', async () => {
    const later = () => new Date(Date.now() + 90 * 24 * 3600 * 1000);
    const fresh = new Arcotheon(options(join(temp, 'home-stale'), { now: later }));
    expect((await fresh.search('csv')).map((h) => h.id)).toContain('acme/csv-summary');
    const { maxCatalogAgeMs: _ignored, ...withDefaultAge } = remote;
    const strict = new Arcotheon(options(join(temp, 'home-strict'), { now: later, remotes: [withDefaultAge] }));
    await expect(strict.search('csv')).rejects.toMatchObject({ code: 'E_STALE' });
  });

  it('still refuses a catalogue older than the pinned minSequence', async () => {
    const pinnedAhead = new Arcotheon(options(join(temp, 'home-rollback'), { remotes: [{ ...remote, minSequence: first.sequence + 1 }] }));
    await expect(pinnedAhead.search('csv')).rejects.toMatchObject({ code: 'E_ROLLBACK' });
  });
});

describe('every example installs and runs', () => {
  it('installs all of them from the built registry, with the permissions approved', async () => {
    const installed = new Map((await arc.list()).map((c) => [c.id, c]));
    expect([...installed.keys()].sort()).toEqual([
      'acme/contract-review',
      'acme/csv-summary',
      'acme/data-report',
      'acme/github-repo',
      'arcotheon/commit-messages',
      'arcotheon/http-reference',
      'arcotheon/workspace-stats',
    ]);
    expect(installed.get('arcotheon/workspace-stats')?.version).toBe('1.2.0');
    expect(installed.get('acme/github-repo')?.grants.sort()).toEqual([
      'env:read:GITHUB_TOKEN',
      'net:connect:api.github.com',
      'storage:data',
    ]);
  });

  it('workspace-stats count_text counts text files and skips binaries and node_modules', async () => {
    const { output } = await runTool(arc, 'arcotheon/workspace-stats', 'count_text', {}, { workspace });
    const files = output['files'] as Array<{ path: string; lines: number; words: number }>;
    expect(files.map((f) => f.path)).toEqual(['README.md', 'agreement.txt', 'sales.csv', 'src/app.ts']);
    expect(files.find((f) => f.path === 'src/app.ts')).toMatchObject({ lines: 3, words: 16 });
    expect(output['skipped']).toBe(1);
  });

  it('workspace-stats find_todos lists notes with owner and line, and refuses paths outside the workspace', async () => {
    const { output } = await runTool(arc, 'arcotheon/workspace-stats', 'find_todos', { path: 'src' }, { workspace });
    expect(output['items']).toEqual([
      { path: 'src/app.ts', line: 1, tag: 'TODO', owner: 'ana', text: 'handle empty input' },
      { path: 'src/app.ts', line: 3, tag: 'FIXME', text: 'remove the retry hack' },
    ]);
    const escape = await runTool(arc, 'arcotheon/workspace-stats', 'find_todos', { path: '../..' }, { workspace }).catch((e: unknown) => e);
    expect(isAdcapError(escape, 'E_TOOL') && escape.message.includes('outside the workspace')).toBe(true);
  });

  it('csv-summary (python) profiles a CSV: types, missing values, min/max/mean', async () => {
    const { output } = await runTool(arc, 'acme/csv-summary', 'summarize_csv', { path: 'sales.csv' }, { workspace, interpreters });
    const columns = new Map((output['columns'] as Array<Record<string, unknown>>).map((c) => [c['name'], c]));
    expect(output['rows']).toBe(8);
    expect(columns.get('units')).toMatchObject({ type: 'integer', missing: 1, min: 2, max: 30 });
    expect(columns.get('unit_price')).toMatchObject({ type: 'number', min: 9.49, max: 102, mean: 36.12 });
    expect(columns.get('date')).toMatchObject({ type: 'date', min: '2025-01-03', max: '2025-01-08' });
    expect(columns.get('returned')).toMatchObject({ type: 'boolean', missing: 1 });
  });

  it('github-repo answers from api.github.com, or fails politely when it cannot reach it', async () => {
    const outcome = await runTool(arc, 'acme/github-repo', 'repo_info', { repo: 'nodejs/node' }, { env: {} }).catch((e: unknown) => e);
    if (isAdcapError(outcome)) {
      expect(outcome.code).toBe('E_TOOL');
      expect(outcome.message).toMatch(/Could not reach api\.github\.com|rate limit/);
    } else {
      expect((outcome as { output: Record<string, unknown> }).output).toMatchObject({ fullName: 'nodejs/node', stale: false });
    }
    const bad = await runTool(arc, 'acme/github-repo', 'repo_info', { repo: 'not a repo' }, { env: {} }).catch((e: unknown) => e);
    expect(isAdcapError(bad, 'E_TOOL') && bad.message.includes('owner/name')).toBe(true);
  });

  it('http-reference fetches only the shards a query needs (one of eight for "404")', async () => {
    const shardShas = first.mirrored.filter((m) => / shard (?!map)/.test(m.what)).map((m) => m.sha256);
    expect(shardShas.length).toBe(8);
    const cached = async (): Promise<number> =>
      (await Promise.all(shardShas.map((sha) => storeOf(arc).cache.has(sha)))).filter(Boolean).length;
    expect(await cached()).toBe(0);
    const notFound = await runTool(arc, 'arcotheon/http-reference', 'lookup_http', { query: 'what does 404 mean' });
    expect(notFound.output['shardsUsed']).toEqual(['shards/status-4xx.jsonl']);
    expect((notFound.output['answers'] as Array<{ id: string }>)[0]?.id).toBe('404');
    expect(await cached()).toBe(1);
    const cors = await runTool(arc, 'arcotheon/http-reference', 'lookup_http', { query: 'cors preflight with cookies' });
    expect(cors.output['shardsUsed']).toEqual(['shards/headers-security.jsonl', 'shards/methods.jsonl']);
    expect((cors.output['answers'] as Array<{ id: string }>)[0]?.id).toBe('cors');
    expect(await cached()).toBe(3);
  });

  it("data-report runs its dependency's tool and its own, then stops at the agent step", async () => {
    const result = await runWorkflow(arc, 'acme/data-report', 'csv-report', { path: 'sales.csv' }, { workspace, interpreters });
    expect(result.status).toBe('agent');
    if (result.status !== 'agent') return;
    expect(result.stepId).toBe('report');
    expect(result.instruction).toContain('It has 8 rows');
    expect(result.instruction).toContain('a busy manager');
    const quality = result.steps.find((s) => s.id === 'quality') as { output?: { findings: Array<{ column?: string }> } } | undefined;
    expect(quality?.output?.findings.map((f) => f.column)).toEqual(['units', 'returned']);
  });

  it('contract-review (pro, entitled) scans a contract with its entitled clause library', async () => {
    const { output } = await runTool(arc, 'acme/contract-review', 'scan_contract', { path: 'agreement.txt' }, { workspace });
    const findings = output['findings'] as Array<{ clause: string; risk: string; line: number }>;
    expect(findings[0]).toMatchObject({ clause: 'auto-renewal', risk: 'high', line: 3 });
    expect(output['counts']).toEqual({ high: 2, medium: 3, low: 2 });
  });

  it('refuses the entitled example without an authoriser (the lock the UI shows)', async () => {
    const locked = new Arcotheon({ ...options(join(temp, 'home-locked')), authorize: undefined });
    await expect(locked.install('acme/contract-review', { approve })).rejects.toMatchObject({ code: 'E_ENTITLEMENT' });
  });

  it('commit-messages (skills only) ships a working checker script in its skill', async () => {
    const dir = await arc.installedDir('arcotheon/commit-messages');
    const script = join(dir, 'skills', 'commit-messages', 'scripts', 'check_commit_message.py');
    expect(execFileSync('python3', [script], { input: 'Fix crash when the config file is empty\n\nExplain why.\n' }).toString()).toContain(
      'ok:',
    );
    let failed: { status?: number; stdout?: Buffer } = {};
    try {
      execFileSync('python3', [script], { input: 'Fixed stuff.\n' });
    } catch (error) {
      failed = error as typeof failed;
    }
    expect(failed.status).toBe(1);
    expect(failed.stdout?.toString()).toContain('ends with a period');
  });
});

describe('several versions of workspace-stats', () => {
  it('install picks 1.2.0 (not the yanked 1.1.0, not the prerelease); exact pins reach the others', async () => {
    const h = new Arcotheon(options(join(temp, 'home-versions')));
    expect((await h.plan('arcotheon/workspace-stats')).versions['arcotheon/workspace-stats']).toBe('1.2.0');
    expect((await h.plan('arcotheon/workspace-stats@^1.1.0')).versions['arcotheon/workspace-stats']).toBe('1.2.0');
    expect((await h.plan('arcotheon/workspace-stats@1.1.0')).versions['arcotheon/workspace-stats']).toBe('1.1.0');
    await h.install('arcotheon/workspace-stats@2.0.0-beta.1', { approve });
    expect((await h.list())[0]?.version).toBe('2.0.0-beta.1');
  });

  it('update and rollback move between the published versions', async () => {
    const h = new Arcotheon(options(join(temp, 'home-update')));
    const id = 'arcotheon/workspace-stats';
    await h.install(`${id}@1.0.0`, { approve });
    // Widening the range keeps what is installed; update then moves within it, past the yank.
    await h.install(`${id}@^1.0.0`, { approve });
    expect((await storeOf(h).state(id)).active).toBe('1.0.0');
    expect((await h.update([id], { approve })).plan.items.map((i) => i.version)).toEqual(['1.2.0']);
    expect(await h.rollback(id)).toEqual({ id, from: '1.2.0', to: '1.0.0' });
    await h.update([id], { approve });
    expect((await storeOf(h).state(id)).active).toBe('1.2.0');
    await h.install(`${id}@*`, { approve });
    await h.update([id], { approve });
    expect((await storeOf(h).state(id)).active).toBe('1.2.0');
    await h.update([id], { approve, includePrerelease: true });
    expect((await storeOf(h).state(id)).active).toBe('2.0.0-beta.1');
  });
});

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}
