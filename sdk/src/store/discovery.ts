/**
 * Discovery (host contract "Embedding" step 3, DESIGN §7 `search`, `packageDoc`): metadata only, from the
 * verified catalogues and package documents of the configured remotes; nothing is installed.
 */
import { AdcapError, isAdcapError } from '../errors.js';
import { parseCapabilityId } from '../registry/layout.js';
import { compareSearchHits, type SearchFilters, type SearchHit } from '../registry/search.js';
import type { PackageDocument } from '../registry/types.js';
import { checkId } from './arguments.js';
import type { HomeLayout } from './home.js';
import type { RegistrySources } from './sources.js';
import { readState } from './state.js';

interface DiscoveryStore {
  readonly home: HomeLayout;
  readonly sources: RegistrySources;
}

/** `arc.search`: every remote searched (or only `filters.remote`); the first remote listing an id wins. */
export async function searchRemotes(
  store: DiscoveryStore,
  query: string,
  filters: Omit<SearchFilters, 'installedIds'> & { remote?: string },
  installed: () => Promise<Array<{ id: string }>>,
): Promise<Array<SearchHit & { remote: string }>> {
  checkQuery(query);
  return searchWith(store, query, filters, new Set((await installed()).map((c) => c.id)));
}

/**
 * searchRemotes' first `filters.limit` hits and how many hits it finds in all (without its limit):
 * what a person's `adcap search` prints ("… and 72,979 more"). The rest are counted by their ids
 * (RegistryClient.searchIds), the first remote listing an id winning as in searchRemotes, without
 * making a hit of each (at 500,000 capabilities "pdf" has 73,000).
 * @internal
 */
export async function searchRemotesCounted(
  store: DiscoveryStore,
  query: string,
  filters: Omit<SearchFilters, 'installedIds'> & { remote?: string },
  installed: () => Promise<Array<{ id: string }>>,
): Promise<{ hits: Array<SearchHit & { remote: string }>; total: number }> {
  checkQuery(query);
  const installedIds = new Set((await installed()).map((c) => c.id));
  const hits = await searchWith(store, query, filters, installedIds);
  if (filters.limit === undefined || hits.length < filters.limit) return { hits, total: hits.length };
  const { remote, limit: _limit, ...catalogueFilters } = filters;
  const seen = new Set<string>();
  const earlier: Array<{ lists(id: string): Promise<boolean> }> = [];
  for (const client of await store.sources.clients()) {
    if (remote !== undefined && client.remote.name !== remote) continue;
    for (const id of await client.searchIds(query, { ...catalogueFilters, installedIds })) {
      if (seen.has(id) || (await listedEarlier(earlier, id))) continue;
      seen.add(id);
    }
    earlier.push(client);
  }
  return { hits, total: seen.size };
}

function checkQuery(query: unknown): void {
  if (typeof query !== 'string')
    throw new AdcapError('E_USAGE', 'search() takes the words to look for as a string ("" lists everything).', {
      details: { argument: 'query' },
    });
}

async function searchWith(
  store: DiscoveryStore,
  query: string,
  filters: Omit<SearchFilters, 'installedIds'> & { remote?: string },
  installedIds: ReadonlySet<string>,
): Promise<Array<SearchHit & { remote: string }>> {
  const seen = new Set<string>();
  const hits: Array<SearchHit & { remote: string }> = [];
  const { remote, limit, ...catalogueFilters } = filters;
  const earlier: Array<{ lists(id: string): Promise<boolean> }> = [];
  for (const client of await store.sources.clients()) {
    if (remote !== undefined && client.remote.name !== remote) continue;
    // The top `limit` of each remote (its index keeps the top k instead of sorting every hit),
    // without the ids an earlier remote lists (the first remote listing an id wins); when those
    // leave fewer than `limit`, the remote is asked for more.
    for (let want = limit; ; want = (want as number) * 2) {
      const found = await client.search(query, { ...catalogueFilters, installedIds, ...(want === undefined ? {} : { limit: want }) });
      let kept = 0;
      for (const hit of found) {
        if (seen.has(hit.id) || (await listedEarlier(earlier, hit.id))) continue;
        seen.add(hit.id);
        hits.push({ ...hit, remote: client.remote.name });
        kept++;
      }
      if (want === undefined || limit === undefined || kept >= limit || found.length < want) break;
    }
    earlier.push(client);
  }
  hits.sort(compareSearchHits);
  return limit === undefined ? hits : hits.slice(0, limit);
}

async function listedEarlier(clients: ReadonlyArray<{ lists(id: string): Promise<boolean> }>, id: string): Promise<boolean> {
  for (const client of clients) if (await client.lists(id)) return true;
  return false;
}

/** `arc.packageDoc`: the verified package document of a capability (every version and its status). */
export async function packageDocument(
  store: DiscoveryStore,
  id: string,
  options: { remote?: string },
): Promise<PackageDocument & { remote: string }> {
  checkId(id, 'packageDoc');
  parseCapabilityId(id);
  // An installed capability is shown as its own registry has it.
  const state = await readState(store.home, id).catch(() => null);
  const installedFrom = state?.versions[state.active]?.source;
  const where =
    options.remote !== undefined ? { only: options.remote } : installedFrom?.kind === 'registry' ? { prefer: installedFrom.remote } : {};
  const located = await store.sources.locate(id, where);
  if (located === null) throw new AdcapError('E_NOT_FOUND', `No configured registry has ${id}; check the id with "adcap search".`);
  return { ...located.doc, remote: located.remote };
}

/**
 * Fetches every remote's catalogue now (an update looks for what is new). A remote that cannot
 * be reached keeps its last verified catalogue; a refused one (an attack) stops the update.
 */
export async function refreshRemotes(sources: RegistrySources): Promise<void> {
  for (const client of await sources.clients()) {
    try {
      await client.update();
    } catch (error) {
      if (!isAdcapError(error, 'E_DOWNLOAD')) throw error;
    }
  }
}
