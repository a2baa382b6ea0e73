/**
 * The Discover screen's search index (docs/ui.md "Fast: search results update within a frame or two of
 * typing"): every remote's verified catalogue as compact rows, sent to the page once per catalogue
 * content, in pages, so the page searches where it draws the list (a worker running
 * sdk/src/registry/search-rank.ts) instead of asking the host on every keystroke. Beside it,
 * `known`: what this computer knows beyond the catalogue (installed versions, and what the package
 * documents read so far say), small and asked for again when it changes.
 */
import { randomUUID } from 'node:crypto';
import semver from 'semver';
import { isAdcapError, type CatalogueCapability, type CataloguePayload } from '@arcotheon/sdk';
import type { RegistryClient } from '@arcotheon/sdk';
import type { HostStore } from '@arcotheon/sdk/internal';
import { CATALOGUE_FLAGS, type CatalogueIndexPage, type CatalogueIndexRow, type CatalogueKnownData } from '../common/types.js';
import type { Catalogue } from './catalogue.js';
import type { Installed } from './installed.js';

/** Rows per page when the page does not say (a 20,000-entry index is four pages of about 1 MiB). */
const DEFAULT_PAGE_ROWS = 5000;
/** Catalogues up to this size have their package documents read without being asked. */
const SMALL_CATALOGUE = 1000;

interface Part {
  remote: string;
  /**
   * What names the content: over layout 1 the SHA-256 of the catalogue file a full verification
   * accepted (the same whether it was loaded or listed from its stored index), else the payload.
   */
  content: string;
  /** A publisher's display name and whether it has an active key (the cards' "verified" mark). */
  publisher: (id: string) => { name: string; verified: boolean };
  /** The capabilities as search sees them, listed only when the index is built again. */
  capabilities: () => Array<[string, CatalogueCapability]>;
}

interface Built {
  revision: string;
  rows: CatalogueIndexRow[];
  publishers: CatalogueIndexPage['publishers'];
  remotes: string[];
}

/** Lets the event loop serve what is waiting (the page's files, other calls) before going on. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export class CatalogueIndex {
  /** Revisions name this process too: a page kept across a host restart never mixes in another's rows. */
  private readonly nonce = randomUUID().slice(0, 8);
  private readonly serials = new WeakMap<CataloguePayload, number>();
  private nextSerial = 1;
  private built: Built | null = null;
  private looking: Promise<Built> | null = null;
  /**
   * The index listed from the stored search indexes, and the clients it was listed from: used until
   * every catalogue has been loaded once (`loading`), which the page's first pages do not wait for.
   */
  private listed: { clients: readonly RegistryClient[]; built: Built } | null = null;
  /** The catalogues' first load (started once the page asks what is known); then every look uses them. */
  private loading: Promise<void> | null = null;
  private loaded = false;
  private closed = false;

  constructor(
    private readonly store: HostStore,
    private readonly installed: Installed,
    private readonly catalogue: Catalogue,
    /** Tells the page the index changed (catalogue-changed). */
    private readonly changed: () => void = () => undefined,
  ) {}

  /** Every remote's verified catalogue, in configuration order (a remote that fails is left out, as in search). */
  private async payloads(): Promise<Part[]> {
    const out: Part[] = [];
    for (const client of await this.store.clients()) {
      try {
        const catalogue = await client.catalogue();
        const { payload } = catalogue;
        const index = await client.searchIndex(catalogue);
        // The capabilities as search sees them: the catalogue's own over layout 1, the search
        // records over layout 2 (whose top level lists none).
        out.push({
          remote: client.remote.name,
          content:
            catalogue.layout === 'v1' && catalogue.catalogueSha256 !== undefined
              ? `sha256-${catalogue.catalogueSha256}`
              : `${payload.sequence}-${this.serialOf(payload)}`,
          publisher: (id) => {
            const record = Object.hasOwn(payload.publishers, id) ? payload.publishers[id] : undefined;
            return { name: record?.name ?? id, verified: (record?.keys ?? []).some((k) => k.status === 'active') };
          },
          capabilities: () => index.entries(),
        });
      } catch (error) {
        if (!isAdcapError(error)) throw error;
      }
    }
    return out;
  }

  /**
   * Every remote's capabilities listed from its stored search index without loading its catalogue
   * (RegistryClient.storedListing: only what a full verification of today's catalogue file built),
   * or null when any remote's cannot be: then the catalogues are loaded and checked first.
   */
  private async listings(clients: readonly RegistryClient[]): Promise<Part[] | null> {
    const out: Part[] = [];
    for (const client of clients) {
      const listing = await client.storedListing().catch(() => null);
      if (listing === null) return null;
      out.push({
        remote: client.remote.name,
        content: `sha256-${listing.catalogueSha256}`,
        publisher: (id) => listing.publishers.get(id) ?? { name: id, verified: false },
        capabilities: () => listing.entries(),
      });
    }
    return out;
  }

  private serialOf(payload: CataloguePayload): number {
    let serial = this.serials.get(payload);
    if (serial === undefined) {
      serial = this.nextSerial++;
      this.serials.set(payload, serial);
    }
    return serial;
  }

  private revisionOf(parts: Part[]): string {
    return [this.nonce, ...parts.map(({ remote, content }) => `${remote}:${content}`)].join(' ');
  }

  /** One look at the catalogues at a time: callers during it (the page's first pages, a warm-up) share it. */
  private current(): Promise<Built> {
    this.looking ??= this.look().finally(() => {
      this.looking = null;
      if (this.loaded) this.catalogue.probeHost();
    });
    return this.looking;
  }

  private async look(): Promise<Built> {
    if (!this.loaded) {
      // docs/ui.md "Fast": Discover's first cards from the stored search indexes, while the
      // catalogues' load and check (a second of CPU at 20,000) waits until the page has its index.
      const clients = await this.store.clients();
      const same =
        this.listed !== null && this.listed.clients.length === clients.length && clients.every((c, i) => this.listed?.clients[i] === c);
      if (same && this.listed !== null) return this.listed.built;
      const parts = await this.listings(clients);
      if (parts !== null) {
        const built = await this.build(parts);
        this.listed = { clients, built };
        return built;
      }
    }
    return this.loadAll();
  }

  /** The index of every catalogue loaded and checked; from then on every look uses them. */
  private async loadAll(): Promise<Built> {
    const built = await this.build(await this.payloads());
    this.loaded = true;
    this.listed = null;
    return built;
  }

  /**
   * Loads and checks every catalogue once, in the background (the capability page, the cards'
   * risks and installs need them); the page hears catalogue-changed when what it was sent differs.
   */
  private loadCatalogues(): void {
    if (this.loaded || this.loading !== null || this.closed) return;
    const sent = this.built?.revision;
    this.loading = nextTurn()
      .then(async () => {
        if (this.closed) return;
        const built = await this.loadAll();
        this.catalogue.probeHost();
        if (built.revision !== sent && !this.closed) this.changed();
      })
      .catch(() => undefined);
  }

  /** A remote was added, removed or refreshed: the next look lists or loads the catalogues again. */
  invalidate(): void {
    this.listed = null;
  }

  /** Stops background work; resolves once the catalogues' load, if started, is done. */
  async close(): Promise<void> {
    this.closed = true;
    await this.loading;
  }

  /**
   * The index of `parts`, built in a few steps with the host's other work between them: the page's
   * files are served by the same process while it builds (at start-up, the page is loading).
   */
  private async build(parts: Part[]): Promise<Built> {
    const revision = this.revisionOf(parts);
    if (this.built?.revision === revision) return this.built;
    const publishers: Built['publishers'] = [];
    const listed: CatalogueIndexRow[] = [];
    /** Each row's sort key: deprecated ones last ("1"), then by lowercase name. */
    const keys: string[] = [];
    const seen = new Set<string>();
    for (const [remote, { publisher: publisherOf, capabilities }] of parts.entries()) {
      const publisherIndex = new Map<string, number>();
      const entries = capabilities();
      await nextTurn();
      for (const [id, c] of entries) {
        // The first remote listing an id wins (as in install and search).
        if (seen.has(id)) continue;
        seen.add(id);
        let publisher = publisherIndex.get(c.publisher);
        if (publisher === undefined) {
          publisher = publishers.length;
          publisherIndex.set(c.publisher, publisher);
          publishers.push({ id: c.publisher, ...publisherOf(c.publisher) });
        }
        const flags =
          (c.tier === 'pro' ? CATALOGUE_FLAGS.pro : 0) |
          (c.access === 'entitled' ? CATALOGUE_FLAGS.entitled : 0) |
          (c.deprecated ? CATALOGUE_FLAGS.deprecated : 0);
        listed.push([id, c.name, c.summary, c.keywords, c.latest ?? null, c.latestPrerelease ?? null, flags, publisher, remote]);
        keys.push(`${c.deprecated ? '1' : '0'}${c.name.toLowerCase()}`);
      }
      await nextTurn();
    }
    // Browsing order, which the page shows as the rows arrive: deprecated last, then by name, then id.
    const order = Array.from(listed.keys());
    order.sort(
      (a, b) =>
        compareCodeUnits(keys[a] as string, keys[b] as string) || compareCodeUnits(listed[a]?.[0] as string, listed[b]?.[0] as string),
    );
    const rows = order.map((i) => listed[i] as CatalogueIndexRow);
    this.built = { revision, rows, publishers, remotes: parts.map((p) => p.remote) };
    return this.built;
  }

  /** A page of the index; a page of the current revision whatever `revision` the caller had. */
  async page(request: { revision?: string; offset?: number; limit?: number }): Promise<CatalogueIndexPage> {
    const built = await this.current();
    const offset = built.revision === request.revision ? (request.offset ?? 0) : 0;
    const first = offset === 0;
    const limit = request.limit ?? DEFAULT_PAGE_ROWS;
    return {
      revision: built.revision,
      total: built.rows.length,
      offset,
      publishers: first ? built.publishers : [],
      remotes: first ? built.remotes : [],
      rows: built.rows.slice(offset, offset + limit),
    };
  }

  /** Installed versions and what the package documents read so far say; `read` reads more of them. */
  async known(request: { read?: boolean }): Promise<CatalogueKnownData> {
    const built = await this.current();
    // The page has its whole index and its first cards (it asks once it has them): now the
    // catalogues are loaded and checked, off the first cards' path.
    this.loadCatalogues();
    const newest = new Map(built.rows.map((row) => [row[0], row[4] ?? row[5]]));
    const installed = (await this.installed.list()).map((c) => {
      const latest = newest.get(c.id) ?? null;
      return {
        id: c.id,
        version: c.version,
        updateAvailable:
          latest !== null && semver.valid(c.version) !== null && semver.valid(latest) !== null && semver.gt(latest, c.version),
      };
    });
    const contents = this.catalogue.knownContents();
    const learned: CatalogueKnownData['learned'] = [];
    const unreadIds: string[] = [];
    for (const [id] of built.rows) {
      const known = contents.get(id);
      if (known === undefined) unreadIds.push(id);
      else learned.push({ id, ...known });
    }
    if (unreadIds.length > 0 && (request.read === true || built.rows.length <= SMALL_CATALOGUE)) this.catalogue.readDocuments(unreadIds);
    return { revision: built.revision, installed, learned, unread: unreadIds.length };
  }
}
