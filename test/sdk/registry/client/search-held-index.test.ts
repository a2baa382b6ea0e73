/**
 * RegistryClient.search over the stored search index it holds (docs/scaling.md "Client memory"):
 * a held segment reads a hit's summary from the file it checked. When that file changed since
 * (another process rebuilt or pruned the index), the search forgets what it holds and reads and
 * checks the index again, instead of failing: the caller never sees the change.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SearchIndexStore } from '../../../../sdk/src/registry/search-index/disk-index.js';
import { TestRegistry } from '../../../helpers/test-registry.js';

let reg: TestRegistry;
let home: string;
const remoteFile = (name: string): Promise<string> => readFile(join(home, 'remotes', 'test', name), 'utf8');

beforeEach(async () => {
  reg = await TestRegistry.create();
  home = await mkdtemp(join(tmpdir(), 'adcap-held-index-home-'));
  await reg.addPublisher('acme');
  await reg.publish({ id: 'acme/pdf', version: '1.0.0', summary: 'Extract PDF text', keywords: ['pdf'] });
  await reg.publish({ id: 'acme/csv', version: '1.0.0', summary: 'Summarise a CSV file' });
  await reg.build();
});
afterEach(async () => {
  await reg.cleanup();
  await rm(home, { recursive: true, force: true });
});

describe('RegistryClient.search with a held index', () => {
  it('a segment file replaced after it was checked: the next search reads and checks the index again and answers', async () => {
    const client = reg.client(home);
    await client.update();
    const first = await client.search('pdf');
    expect(first.map((hit) => [hit.id, hit.summary])).toEqual([['acme/pdf', 'Extract PDF text']]);
    // The same bytes in a new file (a new inode and times), as a rebuild in another process leaves it.
    const dir = join(home, 'remotes', 'test', 'search-index');
    const segments = (await readdir(dir)).filter((name) => name.endsWith('.seg'));
    expect(segments.length).toBeGreaterThan(0);
    for (const name of segments) {
      const bytes = await readFile(join(dir, name));
      await rm(join(dir, name));
      await writeFile(join(dir, name), bytes);
    }
    expect(await client.search('pdf')).toEqual(first);
    expect((await client.search('csv')).map((hit) => hit.summary)).toEqual(['Summarise a CSV file']);
  });
});

describe('RegistryClient over a stored v2 catalogue opens its search index only for search', () => {
  it('record(), lists() and capability() read one segment, not the index; search() opens it', async () => {
    await reg.client(home, { layout: 'auto' }).update();
    // A new process: a client of its own on the same home.
    const client = reg.client(home, { layout: 'auto' });
    expect((await client.catalogue({ refresh: 'never' })).layout).toBe('v2');
    const dictionary = vi.spyOn(SearchIndexStore.prototype, 'readDictionary');
    const segments = vi.spyOn(SearchIndexStore.prototype, 'readSegment');
    try {
      expect((await client.record('acme/pdf'))?.latest).toBe('1.0.0');
      expect(await client.lists('acme/csv')).toBe(true);
      expect(await client.lists('acme/absent')).toBe(false);
      expect(await client.record('acme/absent', { refresh: 'never' })).toBeNull();
      expect((await client.capability('acme/csv')).latest).toBe('1.0.0');
      expect((await client.catalogue({ refresh: 'never' })).capabilityCount).toBe(2);
      expect(dictionary).not.toHaveBeenCalled();
      expect(segments.mock.calls.length).toBeGreaterThan(0);
      // Asked again (an MCP server's next call): the answer is remembered for this snapshot.
      const manifests = vi.spyOn(SearchIndexStore.prototype, 'readManifest');
      try {
        expect(await client.lists('acme/absent')).toBe(false);
        expect(await client.lists('acme/csv')).toBe(true);
        expect(manifests).not.toHaveBeenCalled();
      } finally {
        manifests.mockRestore();
      }

      expect((await client.search('pdf')).map((hit) => hit.id)).toEqual(['acme/pdf']);
      expect(dictionary).toHaveBeenCalled();
    } finally {
      dictionary.mockRestore();
      segments.mockRestore();
    }
  });

  it('a stored index with no usable segment: record() opens the index, which is made again from the registry', async () => {
    await reg.client(home, { layout: 'auto' }).update();
    const dir = join(home, 'remotes', 'test', 'search-index');
    for (const name of await readdir(dir)) if (name.endsWith('.seg')) await rm(join(dir, name));
    const client = reg.client(home, { layout: 'auto' });
    expect((await client.record('acme/pdf'))?.latest).toBe('1.0.0');
    expect((await readdir(dir)).some((name) => name.endsWith('.seg'))).toBe(true);
    expect((await client.search('csv')).map((hit) => hit.id)).toEqual(['acme/csv']);
  });
});

describe('a registry on this computer read as v2', () => {
  // The embedded example registry is one. Its top level was read again by every new process: the
  // check for a changed local catalogue hashed v1/'s file (no layout loaded yet) and compared it
  // with the stored v2 top level, so each search fetched, verified and rewrote the remote.
  it('is not read again by a new client while its top level is unchanged; it is once that changes', async () => {
    expect((await reg.client(home, { layout: 'auto' }).update()).layout).toBe('v2');
    const state = await remoteFile('state.json');
    const attempt = await remoteFile('attempt.json');
    await new Promise((resolve) => setTimeout(resolve, 20)); // a re-read would record a later time
    const hits = await reg.client(home, { layout: 'auto' }).search('pdf');
    expect(hits.map((hit) => hit.id)).toEqual(['acme/pdf']);
    expect(await remoteFile('state.json')).toBe(state);
    expect(await remoteFile('attempt.json')).toBe(attempt);
    // Published and built again: the next new client reads the new top level at once.
    await reg.publish({ id: 'acme/pdf-forms', version: '1.0.0', summary: 'Fill PDF forms' });
    await reg.build();
    expect((await reg.client(home, { layout: 'auto' }).search('pdf')).map((hit) => hit.id).sort()).toEqual(['acme/pdf', 'acme/pdf-forms']);
    expect(await remoteFile('state.json')).not.toBe(state);
  });
});
