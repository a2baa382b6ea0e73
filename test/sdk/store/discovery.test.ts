/**
 * `arc.search` across remotes (DESIGN §7 `search`): each remote gives its top `limit` (its index keeps
 * the top k), the first remote listing an id wins even when that remote ranks it outside its own top
 * k, and the answer is the same whether a remote serves v1/ or v2/ (docs/scaling.md).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Arcotheon } from '../../../sdk/src/index.js';
import { searchRemotesCounted } from '../../../sdk/src/store/discovery.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';
import { TestRegistry } from '../../helpers/test-registry.js';

let first: TestRegistry;
let second: TestRegistry;
let home: string;

function arc(): Arcotheon {
  return new Arcotheon({
    home,
    host: { agent: { id: 'arcotheon', version: '1.0.0' } },
    remotes: [
      // v2/ removed below: a version 1 registry.
      { name: 'first', url: first.v1Url, rootKeys: [first.rootKey.publicKey] },
      { name: 'second', url: second.v1Url, rootKeys: [second.rootKey.publicKey] },
    ],
    runtimes: { node: '22.12.0' },
  });
}

beforeAll(async () => {
  first = await TestRegistry.create({ name: 'first' });
  second = await TestRegistry.create({ name: 'second' });
  home = await mkdtemp(join(tmpdir(), 'adcap-discovery-home-'));
  await first.addPublisher('acme');
  await second.addPublisher('acme');
  // The first registry lists acme/shared with a summary that ranks it last for "pdf"; the second
  // lists it with one that would rank it first.
  await first.publish({ id: 'acme/shared', version: '1.0.0', name: 'Shared', summary: 'Works on pdf files' });
  for (const n of [1, 2, 3]) await first.publish({ id: `acme/pdf-${n}`, version: '1.0.0', name: `pdf ${n}`, keywords: ['pdf'] });
  await second.publish({ id: 'acme/shared', version: '1.0.0', name: 'pdf shared', keywords: ['pdf'] });
  await second.publish({ id: 'acme/pdf-extra', version: '1.0.0', name: 'pdf extra', keywords: ['pdf'] });
  await first.build();
  await second.build();
  await rm(first.path('v2'), { recursive: true });
}, 120_000);

afterAll(async () => {
  await first.cleanup();
  await second.cleanup();
  await rm(home, { recursive: true, force: true });
});

describe('search across remotes', () => {
  it('the first remote listing an id wins, with or without a limit, over v1 and v2 alike', async () => {
    const all = await arc().search('pdf');
    expect(all.map((hit) => hit.id).sort()).toEqual(['acme/pdf-1', 'acme/pdf-2', 'acme/pdf-3', 'acme/pdf-extra', 'acme/shared']);
    // The first registry lists acme/shared (ranked last there): it wins over the second's copy.
    expect(all.find((hit) => hit.id === 'acme/shared')).toMatchObject({ remote: 'first', summary: 'Works on pdf files' });
    expect(all.at(-1)?.id).toBe('acme/shared');
    for (const limit of [1, 2, 3, 4, 5, 10]) {
      expect((await arc().search('pdf', { limit })).map((hit) => [hit.id, hit.remote])).toEqual(
        all.slice(0, limit).map((hit) => [hit.id, hit.remote]),
      );
    }
    expect(new Set(all.map((hit) => hit.remote))).toEqual(new Set(['first', 'second']));
  });
});

describe("a page of hits and how many there are in all (what a person's adcap search prints)", () => {
  it("the page is the limited search; the total is the unlimited search's length, the first remote listing an id winning", async () => {
    const a = arc();
    const counted = (query: string, filters: NonNullable<Parameters<Arcotheon['search']>[1]>) =>
      searchRemotesCounted(storeOf(a), query, filters, () => a.list());
    for (const query of ['pdf', '', 'shared', 'nothing-matches']) {
      const all = await a.search(query);
      for (const limit of [1, 2, 4, 5, 50]) {
        const { hits, total } = await counted(query, { limit });
        expect(hits.map((hit) => [hit.id, hit.remote])).toEqual(all.slice(0, limit).map((hit) => [hit.id, hit.remote]));
        // acme/shared is listed by both remotes: counted once.
        expect(total, `${query} limit ${limit}`).toBe(all.length);
      }
      const second = await a.search(query, { remote: 'second' });
      expect((await counted(query, { remote: 'second', limit: 1 })).total).toBe(second.length);
    }
    expect((await counted('pdf', { limit: 1 })).total).toBe(5);
  });
});
