// The Arcotheon class keeps its store to itself (host contract "Embedding": hosts call the class and
// runTool, runWorkflow, resumeWorkflow, mcpServe and watchChanges, nothing inside it). Its home
// layout, cache, sources, state() and withHome() are reachable only through storeOf of
// @arcotheon/sdk/internal; the public functions that take an Arcotheon refuse anything else with
// E_USAGE naming the call. Real homes in temporary folders.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpServe } from '../../../sdk/src/run/mcp.js';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import { resumeWorkflow, runWorkflow } from '../../../sdk/src/run/workflow.js';
import { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { watchChanges } from '../../../sdk/src/store/change-events.js';
import { hostStore } from '../../../sdk/src/store/host-store.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';
import { rejection } from '../../helpers/errors.js';

let dir: string;
let arc: Arcotheon;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'adcap-store-of-'));
  arc = new Arcotheon({ home: join(dir, 'home'), host: { agent: { id: 'arcotheon', version: '1.0.0' } }, remotes: [] });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('storeOf', () => {
  it('is the only way to the store: the instance shows no home, cache, sources, state or withHome', () => {
    // Nor the options echoed back for the store's own use (authorize, checkTier, enablementHook, sourcePolicy).
    for (const key of ['home', 'cache', 'sources', 'state', 'withHome', 'authorize', 'checkTier', 'enablementHook', 'sourcePolicy']) {
      expect(key in arc, key).toBe(false);
      expect(Reflect.get(arc, key), key).toBeUndefined();
    }
    const store = storeOf(arc);
    expect(store.home.root).toBe(join(dir, 'home'));
    expect(store.cache.dir).toBe(store.home.cacheDir);
    expect(storeOf(arc)).toBe(store);
    // Two instances over one home have a store each.
    expect(storeOf(new Arcotheon({ home: join(dir, 'home'), host: { agent: { id: 'arcotheon', version: '1.0.0' } } }))).not.toBe(store);
    expect(hostStore(arc).homeDir).toBe(store.home.root);
  });

  it('the store reads what the public calls read: state() of an id not installed is E_NOT_INSTALLED, as installedDir()', async () => {
    expect(await rejection(storeOf(arc).state('acme/none'))).toMatchObject({ code: 'E_NOT_INSTALLED' });
    expect(await rejection(arc.installedDir('acme/none'))).toMatchObject({ code: 'E_NOT_INSTALLED' });
  });

  it('the public functions refuse anything but an Arcotheon with E_USAGE naming the call', async () => {
    // A plain object shaped like the old public members is no Arcotheon (a host written against them).
    const lookalike = { home: storeOf(arc).home, cache: storeOf(arc).cache, sources: storeOf(arc).sources } as unknown as Arcotheon;
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['runTool()', () => runTool(lookalike, 'acme/x', 'tool', {})],
      ['runWorkflow()', () => runWorkflow(lookalike, 'acme/x', 'flow', {})],
      ['resumeWorkflow()', () => resumeWorkflow(lookalike, 'token', null)],
      ['mcpServe()', () => mcpServe(lookalike, ['acme/x'])],
      ['watchChanges()', async () => watchChanges(lookalike, () => undefined)],
      ['hostStore()', async () => hostStore(lookalike)],
    ];
    for (const [call, run] of calls) {
      const error = await rejection(run());
      expect(error, call).toMatchObject({ code: 'E_USAGE', details: { argument: 'arc' } });
      expect((error as Error).message, call).toBe(`${call} takes the Arcotheon instance a host made with new Arcotheon({ home, host }).`);
    }
    for (const value of [null, undefined, 'home']) {
      expect(await rejection((async () => storeOf(value as unknown as Arcotheon, 'runTool()'))())).toMatchObject({ code: 'E_USAGE' });
    }
  });
});
