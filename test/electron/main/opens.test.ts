// Files and links from the operating system: a .adcap file becomes a verified sideload
// through the real host service, a link a strict spec; nothing installs; requests that arrive
// before the page listens wait for it; a second launch focuses the window and hands its argv over.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon } from '@arcotheon/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenRequest } from '../../../electron/common/desktop.js';
import type { HostMethod } from '../../../electron/common/methods.js';
import type { PlanData, Result } from '../../../electron/common/types.js';
import { createHostService, type HostService } from '../../../electron/host/service.js';
import { OPEN_QUEUE_LIMIT, OpenDispatcher, openRequestFor } from '../../../electron/main/opens.js';
import { buildCapability, LifecycleRegistry } from '../../helpers/lifecycle-registry.js';

let reg: LifecycleRegistry;
let service: HostService;
let arc: Arcotheon;
let pkg: string;
let dir: string;
const calls: string[] = [];
const host = (method: HostMethod, args: unknown[]): Promise<Result<unknown>> => {
  calls.push(method);
  return service.dispatch(method, args);
};

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  dir = await mkdtemp(join(tmpdir(), 'adcap-opens-'));
  // An unsigned package of 2.5 MiB: it crosses in three 1 MiB chunks.
  pkg = await buildCapability(
    { id: 'acme/opened', version: '1.0.0', permissions: [{ id: 'net:connect', reason: 'talks to its API' }], padding: 2_500_000 },
    dir,
    [],
  );
  arc = new Arcotheon(reg.options(await reg.newHome()));
  service = createHostService(arc, { maxSideloadBytes: 8 * 1024 * 1024 });
});
afterAll(async () => {
  await service.close();
});

describe('a .adcap file opened from the file manager', () => {
  it('becomes a sideload handle the install dialog plans with; nothing is installed', async () => {
    calls.length = 0;
    const request = await openRequestFor(host, { kind: 'file', path: pkg });
    expect(request.kind).toBe('sideload');
    if (request.kind !== 'sideload') throw new Error('unreachable');
    expect(calls.filter((c) => c === 'sideload.chunk')).toHaveLength(3);
    expect(calls).not.toContain('installs.install');
    const plan = (await service.dispatch('installs.plan', [{ sideload: request.file.file }])) as Result<PlanData>;
    expect(plan.ok).toBe(true);
    if (!plan.ok) throw new Error(plan.error.message);
    expect(JSON.stringify(plan.value)).toContain('acme/opened');
    expect(await arc.list()).toEqual([]);
  });

  it('refuses what is not a package file, with a sentence', async () => {
    const empty = join(dir, 'empty.adcap');
    await writeFile(empty, '');
    const notes = join(dir, 'notes.txt');
    await writeFile(notes, 'hello');
    for (const target of [join(dir, 'missing.adcap'), empty, notes, dir + '.adcap']) {
      const request = await openRequestFor(host, { kind: 'file', path: target });
      expect(request.kind, target).toBe('refused');
      if (request.kind === 'refused') expect(request.message.length).toBeGreaterThan(10);
    }
  });

  it('sends a .mcpb MCP Bundle as a sideload too (the page opens its import dialog); other files are refused naming both', async () => {
    const bundle = join(dir, 'server.mcpb');
    await writeFile(bundle, 'PK\u0005\u0006'.padEnd(22, '\u0000'));
    const request = await openRequestFor(host, { kind: 'file', path: bundle });
    expect(request).toMatchObject({ kind: 'sideload', file: { name: 'server.mcpb', size: 22 } });
    const notes = join(dir, 'notes.md');
    await writeFile(notes, '# hi');
    expect(await openRequestFor(host, { kind: 'file', path: notes })).toEqual({
      kind: 'refused',
      message: 'Arcotheon opens .adcap packages and .mcpb MCP Bundles only.',
    });
  });

  it('refuses a file over the host service limit before sending its bytes', async () => {
    const small = createHostService(arc, { maxSideloadBytes: 1024 * 1024 });
    const sent: string[] = [];
    const request = await openRequestFor((m, a) => (sent.push(m), small.dispatch(m, a)), { kind: 'file', path: pkg });
    expect(request).toMatchObject({ kind: 'refused' });
    expect(sent).not.toContain('sideload.chunk');
    await small.close();
  });
});

describe('links and the hand-over between instances', () => {
  function dispatcher() {
    const delivered: OpenRequest[] = [];
    let focused = 0;
    const d = new OpenDispatcher({ host, deliver: (r) => delivered.push(r), focus: () => void focused++ });
    return { d, delivered, focused: () => focused };
  }

  it('queues requests until the page asks, then pushes them; a reload queues again', async () => {
    const { d, delivered } = dispatcher();
    await d.open([
      { kind: 'link', url: 'arcotheon://install/acme/opened@^1.0.0' },
      { kind: 'link', url: 'arcotheon://install/acme/opened?auto=1' },
    ]);
    expect(delivered).toEqual([]);
    expect(d.listening).toBe(false);
    const taken = d.take();
    expect(d.listening).toBe(true);
    expect(taken[0]).toEqual({ kind: 'install', spec: 'acme/opened@^1.0.0' });
    expect(taken[1]).toMatchObject({ kind: 'refused' });
    expect(d.take()).toEqual([]);
    await d.open([{ kind: 'link', url: 'arcotheon://install/acme/x' }]);
    expect(delivered).toEqual([{ kind: 'install', spec: 'acme/x' }]);
    d.pageGone();
    expect(d.listening).toBe(false);
    await d.open([{ kind: 'link', url: 'arcotheon://install/acme/y' }]);
    expect(delivered).toHaveLength(1);
    expect(d.take()).toEqual([{ kind: 'install', spec: 'acme/y' }]);
  });

  it('a second launch focuses the window and hands over its file and link, in order', async () => {
    const { d, delivered, focused } = dispatcher();
    d.take();
    await d.secondInstance(['/opt/Arcotheon/arcotheon', '--enable-features=x', 'arcotheon://install/acme/z@1.2.3', pkg], '/somewhere', 1);
    expect(focused()).toBe(1);
    expect(delivered.map((r) => r.kind)).toEqual(['install', 'sideload']);
    expect(delivered[0]).toEqual({ kind: 'install', spec: 'acme/z@1.2.3' });
    // A second launch with nothing to open still brings the window forward.
    await d.secondInstance(['/opt/Arcotheon/arcotheon'], '/', 1);
    expect(focused()).toBe(2);
    expect(delivered).toHaveLength(2);
  });

  it('keeps at most the newest requests while the page is not listening', async () => {
    const { d } = dispatcher();
    await d.open(
      Array.from({ length: OPEN_QUEUE_LIMIT + 5 }, (_, i) => ({ kind: 'link' as const, url: `arcotheon://install/acme/n${i}` })),
    );
    const taken = d.take();
    expect(taken).toHaveLength(OPEN_QUEUE_LIMIT);
    expect(taken[0]).toEqual({ kind: 'install', spec: 'acme/n5' });
  });
});
