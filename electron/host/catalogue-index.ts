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
  payload: CataloguePayload;
  /** The capabilities as search sees them, listed only when the index is built again. */
  capabilities: () => Array<[string, CatalogueCapability]>;
}

interface Built {
  revision: string;
  rows: CatalogueIndexRow[];
  publishers: CatalogueIndexPage['publishers'];
  remotes: string[];
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

  constructor(
    private readonly store: HostStore,
    private readonly installed: Installed,
    private readonly catalogue: Catalogue,
  ) {}

  /** Every remote's verified catalogue, in configuration order (a remote that fails is left out, as in search). */
  private async payloads(): Promise<Part[]> {
    const out: Part[] = [];
    for (const client of await this.store.clients()) {
      try {
        const catalogue = await client.catalogue();
        // The capabilities as search sees them: the catalogue's own over layout 1, the search
        // records over layout 2 (whose top level lists none).
        out.push({ remote: client.remote.name, payload: catalogue.payload, capabilities: () => client.searchIndex(catalogue).entries() });
      } catch (error) {
        if (!isAdcapError(error)) throw error;
      }
    }
    return out;
  }

  private revisionOf(parts: Part[]): string {
    return [
      this.nonce,
      ...parts.map(({ remote, payload }) => {
        let serial = this.serials.get(payload);
        if (serial === undefined) {
          serial = this.nextSerial++;
          this.serials.set(payload, serial);
        }
        return `${remote}:${payload.sequence}:${serial}`;
      }),
    ].join(' ');
  }

  /** One look at the catalogues at a time: callers during it (the page's first pages, a warm-up) share it. */
  private current(): Promise<Built> {
    this.looking ??= this.look().finally(() => {
      this.looking = null;
      this.catalogue.probeHost();
    });
    return this.looking;
  }

  private async look(): Promise<Built> {
    const parts = await this.payloads();
    const revision = this.revisionOf(parts);
    if (this.built?.revision === revision) return this.built;
    const publishers: Built['publishers'] = [];
    const publisherIndex = new Map<string, number>();
    const rows: CatalogueIndexRow[] = [];
    const seen = new Set<string>();
    parts.forEach(({ payload, capabilities }, remote) => {
      for (const [id, c] of capabilities()) {
        // The first remote listing an id wins (as in install and search).
        if (seen.has(id)) continue;
        seen.add(id);
        const key = `${remote}\n${c.publisher}`;
        let publisher = publisherIndex.get(key);
        if (publisher === undefined) {
          const record = Object.hasOwn(payload.publishers, c.publisher) ? payload.publishers[c.publisher] : undefined;
          publisher = publishers.length;
          publisherIndex.set(key, publisher);
          publishers.push({
            id: c.publisher,
            name: record?.name ?? c.publisher,
            verified: (record?.keys ?? []).some((k) => k.status === 'active'),
          });
        }
        const flags =
          (c.tier === 'pro' ? CATALOGUE_FLAGS.pro : 0) |
          (c.access === 'entitled' ? CATALOGUE_FLAGS.entitled : 0) |
          (c.deprecated ? CATALOGUE_FLAGS.deprecated : 0);
        rows.push([id, c.name, c.summary, c.keywords, c.latest ?? null, c.latestPrerelease ?? null, flags, publisher, remote]);
      }
    });
    // Browsing order, which the page shows as the rows arrive: deprecated last, then by name, then id.
    const names = new Map(rows.map((row) => [row, row[1].toLowerCase()]));
    rows.sort(
      (a, b) =>
        (a[6] & CATALOGUE_FLAGS.deprecated) - (b[6] & CATALOGUE_FLAGS.deprecated) ||
        compareCodeUnits(names.get(a) as string, names.get(b) as string) ||
        compareCodeUnits(a[0], b[0]),
    );
    this.built = { revision, rows, publishers, remotes: parts.map((p) => p.remote) };
    return this.built;
  }

  /** A page of the index; a page of the current revision whatever `revision` the caller had. */
  async page(request: { revision?: string; offset?: number; limit?: number }): Promise<CatalogueIndexPage> {
    const built = await this.current();
    const offset = built.revision === request.revision ? (request.offset ?? 0) : 0;
    const first = offset === 0;
    return {
      revision: built.revision,
      total: built.rows.length,
      offset,
      publishers: first ? built.publishers : [],
      remotes: first ? built.remotes : [],
      rows: built.rows.slice(offset, offset + (request.limit ?? DEFAULT_PAGE_ROWS)),
    };
  }

  /** Installed versions and what the package documents read so far say; `read` reads more of them. */
  async known(request: { read?: boolean }): Promise<CatalogueKnownData> {
    const built = await this.current();
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
