/**
 * The overall risk on every card (docs/ui.md "Permissions, the heart of it": one verdict per
 * capability, the same on its card as on its page): `capabilityRisk` over the capability's own
 * permissions and skills' programs and those of the dependencies installing it pulls in, at the
 * version an install would take. The walk reads package documents and installed manifests (no
 * archive is downloaded); it is the one the capability page uses (catalogue.ts calls `installRisk`).
 *
 * A dependency walk per card is too costly to do per render: verdicts are computed on the host, once
 * per catalogue content and set of installed versions (what they depend on), kept until either
 * changes, and sent to the page for the cards it shows (`catalogue.risks`).
 */
import { randomUUID } from 'node:crypto';
import semver from 'semver';
import { isAdcapError, type Arcotheon, type CataloguePayload, type PackageDocument } from '@arcotheon/sdk';
import { capabilityRisk, skillProgramsOf, type HostStore, type RiskPart } from '@arcotheon/sdk/internal';
import type { CardRiskData, CardRiskView, RiskVerdict } from '../common/types.js';
import type { Installed } from './installed.js';

/** Dependencies followed for one verdict (a capability with more says so in its reason). */
export const MAX_RISK_DEPENDENCIES = 100;
/** Verdicts computed at once for one request (the page asks for the cards it shows). */
const CONCURRENCY = 4;

/** Where the walk reads from: the home and the registries, each read at most once per generation. */
export interface RiskSources {
  /** The installed version of `id`, or null. */
  installedVersion(id: string): Promise<string | null>;
  /** The installed manifest's name, permissions, programs and dependencies, or null when unreadable. */
  installedManifest(
    id: string,
    version: string,
  ): Promise<{ part: Omit<RiskPart, 'dependency'>; dependencies: Record<string, string> } | null>;
  /** The verified package document of `id` from the first remote listing it, or null. */
  document(id: string): Promise<PackageDocument | null>;
}

/** Reads straight from the home and the registries (the capability page, asked once per page). */
export function liveSources(arc: Arcotheon, store: HostStore): RiskSources {
  return {
    installedVersion: async (id) => (await store.state(id).catch(() => null))?.active ?? null,
    installedManifest: async (id, version) => {
      const manifest = await arc.readInstalledManifest(id, version).catch(() => null);
      if (manifest === null) return null;
      return {
        part: { id, name: manifest.name, permissions: manifest.permissions ?? [], skillPrograms: skillProgramsOf(manifest) },
        dependencies: manifest.dependencies ?? {},
      };
    },
    document: async (id) => (await store.locate(id).catch(() => null))?.doc ?? null,
  };
}

/** The same reads, each asked once: verdicts of many cards share their dependencies' documents. */
function memoised(sources: RiskSources): RiskSources {
  const memo = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, read: () => Promise<T>): Promise<T> => {
    let known = memo.get(key) as Promise<T> | undefined;
    if (known === undefined) {
      known = read();
      memo.set(key, known);
    }
    return known;
  };
  return {
    installedVersion: (id) => once(`v\n${id}`, () => sources.installedVersion(id)),
    installedManifest: (id, version) => once(`m\n${id}\n${version}`, () => sources.installedManifest(id, version)),
    document: (id) => once(`d\n${id}`, () => sources.document(id)),
  };
}

/**
 * The overall risk of installing `self`: its own permissions and programs, and those of every
 * dependency it pulls in, at the version an install would take (the installed one when it satisfies
 * the range, else the newest allowed one that is neither yanked nor revoked, as the resolver
 * prefers). Dependencies that cannot be read are named in the reason (the level may be too low).
 */
export async function installRisk(sources: RiskSources, self: RiskPart, dependencies: Record<string, string>): Promise<RiskVerdict> {
  const parts: RiskPart[] = [self];
  const unknown: string[] = [];
  const seen = new Set([self.id]);
  const queue = Object.entries(dependencies);
  while (queue.length > 0) {
    const [dep, range] = queue.shift() as [string, string];
    if (seen.has(dep)) continue;
    seen.add(dep);
    if (seen.size > MAX_RISK_DEPENDENCIES) {
      unknown.push(`${dep} and the dependencies after it`);
      break;
    }
    const active = await sources.installedVersion(dep);
    if (active !== null && semver.satisfies(active, range, { includePrerelease: true })) {
      const installed = await sources.installedManifest(dep, active);
      if (installed !== null) {
        parts.push({ ...installed.part, dependency: true });
        queue.push(...Object.entries(installed.dependencies));
        continue;
      }
    }
    const doc = await sources.document(dep);
    const usable = Object.values(doc?.versions ?? {})
      .filter((v) => v.status === undefined)
      .map((v) => v.version);
    const pick = semver.maxSatisfying(usable, range) ?? semver.maxSatisfying(usable, range, { includePrerelease: true });
    const version = pick === null ? undefined : doc?.versions[pick];
    if (version === undefined) {
      unknown.push(dep);
      continue;
    }
    parts.push({
      id: dep,
      name: version.name,
      dependency: true,
      permissions: version.permissions,
      skillPrograms: version.contents.skillPrograms ?? [],
    });
    queue.push(...Object.entries(version.dependencies));
  }
  return capabilityRisk(parts, unknown);
}

/** What a card shows of a verdict: the level, the reason, and whether some dependency could not be read. */
function cardView(id: string, verdict: RiskVerdict): CardRiskView {
  return { id, level: verdict.level, reason: verdict.reason, incomplete: verdict.unknown.length > 0 };
}

interface Generation {
  key: string;
  revision: string;
  sources: RiskSources;
  verdicts: Map<string, Promise<CardRiskView | null>>;
}

export class CardRisks {
  /** Revisions name this process too, so a page never keeps verdicts of another host's run. */
  private readonly nonce = randomUUID().slice(0, 8);
  private readonly serials = new WeakMap<CataloguePayload, number>();
  private nextSerial = 1;
  private generation: Generation | null = null;
  private generations = 0;

  constructor(
    private readonly arc: Arcotheon,
    private readonly store: HostStore,
    private readonly installed: Installed,
  ) {}

  /** What every verdict depends on: each remote's verified catalogue (by content) and the installed versions. */
  private async current(): Promise<Generation> {
    const parts: string[] = [];
    for (const client of await this.store.clients()) {
      try {
        const { payload } = await client.catalogue();
        let serial = this.serials.get(payload);
        if (serial === undefined) {
          serial = this.nextSerial++;
          this.serials.set(payload, serial);
        }
        parts.push(`${client.remote.name}:${payload.sequence}:${serial}`);
      } catch (error) {
        // A remote that cannot be read is left out, as in search; its capabilities get no verdict.
        if (!isAdcapError(error)) throw error;
        parts.push(`${client.remote.name}:-`);
      }
    }
    const installed = (await this.installed.list()).map((c) => `${c.id}@${c.version}`).sort();
    const key = `${parts.join(' ')}\n${installed.join(' ')}`;
    if (this.generation?.key !== key) {
      this.generation = {
        key,
        revision: `${this.nonce}-${++this.generations}`,
        sources: memoised(liveSources(this.arc, this.store)),
        verdicts: new Map(),
      };
    }
    return this.generation;
  }

  /**
   * `catalogue.risks`: the verdict of each of `ids` as its card shows it. For Discover (`installed`
   * false) the version its page shows, the newest listed; for Installed (`installed` true) the
   * installed version with the dependencies as installed. An id with nothing to read (not listed, not
   * installed, its registry unreachable) is left out: the card shows no verdict rather than a wrong one.
   */
  async verdicts(request: { ids: readonly string[]; installed?: boolean }): Promise<CardRiskData> {
    const generation = await this.current();
    const mode = request.installed === true ? 'installed' : 'catalogue';
    const ids = [...new Set(request.ids)];
    const out: CardRiskView[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < ids.length) {
        const id = ids[next++] as string;
        const key = `${mode}\n${id}`;
        let verdict = generation.verdicts.get(key);
        if (verdict === undefined) {
          verdict = (mode === 'installed' ? this.ofInstalled(generation.sources, id) : this.ofListed(generation.sources, id)).catch(
            (error: unknown) => {
              if (isAdcapError(error)) return null;
              throw error;
            },
          );
          generation.verdicts.set(key, verdict);
        }
        const view = await verdict;
        if (view !== null) out.push(view);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, ids.length) }, worker));
    const order = new Map(ids.map((id, i) => [id, i]));
    out.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    return { revision: generation.revision, verdicts: out };
  }

  /** The newest listed version's verdict, as the capability page shows it (catalogue.ts `detail`). */
  private async ofListed(sources: RiskSources, id: string): Promise<CardRiskView | null> {
    const located = await this.store.locate(id).catch(() => null);
    if (located === null) return null;
    const listed = await located.client.capability(id).catch(() => undefined);
    const all = Object.values(located.doc.versions).sort((a, b) => semver.rcompare(a.version, b.version));
    const latest = listed?.latest ?? listed?.latestPrerelease ?? all.find((v) => v.status === undefined)?.version ?? all[0]?.version;
    const entry = latest === undefined ? undefined : located.doc.versions[latest];
    if (entry === undefined) return null;
    const self: RiskPart = {
      id,
      name: entry.name,
      dependency: false,
      permissions: entry.permissions,
      skillPrograms: entry.contents.skillPrograms ?? [],
    };
    return cardView(id, await installRisk(sources, self, entry.dependencies));
  }

  /** The installed version's verdict, with the dependencies as they are installed. */
  private async ofInstalled(sources: RiskSources, id: string): Promise<CardRiskView | null> {
    const version = await sources.installedVersion(id);
    if (version === null) return null;
    const installed = await sources.installedManifest(id, version);
    if (installed === null) return null;
    return cardView(id, await installRisk(sources, { ...installed.part, dependency: false }, installed.dependencies));
  }
}
