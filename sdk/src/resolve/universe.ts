import semver from 'semver';
import { AdcapError } from '../errors.js';
import { checkCompatibility } from './compat.js';
import { RangeBook } from './ranges.js';
import type { CandidateVersion, ResolveRequest } from './types.js';

/** One usable-or-not version of a capability, with what the search needs precomputed. */
export interface Candidate {
  id: string;
  version: string;
  /** Version without build metadata: what an exact pin names. */
  norm: string;
  parsed: semver.SemVer;
  source: CandidateVersion;
  /** Dependencies sorted by id, for deterministic search order. */
  deps: Array<[string, string]>;
  depMap: Map<string, string>;
  /** spec §11: yanked, or a prerelease not requested: usable only when pinned exactly. */
  needsPin: boolean;
  /** Why this version can never be selected on this host, as a clause (`1.2.0 is revoked`). */
  excluded?: string;
  excludedKind?: 'revoked' | 'incompatible' | 'missing' | 'invalid-range' | 'unpinned';
}

export interface UniverseOptions {
  /** Diagnosis only: treat every version as compatible with the host. */
  ignoreCompat?: boolean;
  /** Diagnosis only: drop dependencies on ids that do not exist instead of excluding the version. */
  ignoreMissing?: boolean;
}

/**
 * Every capability reachable from the roots through any version's dependencies, loaded once
 * from the injected view. Exclusions that do not depend on the search (spec §11: revoked
 * never; incompatible platform, agent or runtime; yanked or prerelease versions that nothing
 * anywhere pins exactly) are decided here.
 */
export class Universe {
  readonly book = new RangeBook();
  /** Versions of each id, highest first; an absent key means the id does not exist. */
  readonly packages = new Map<string, Candidate[]>();
  /** Breadth-first discovery order from the roots: the search's variable order. */
  readonly rank = new Map<string, number>();
  readonly missing = new Map<string, Set<string>>();
  hasIncompatible = false;

  constructor(
    readonly request: ResolveRequest,
    readonly options: UniverseOptions = {},
  ) {
    this.load();
  }

  versions(id: string): Candidate[] {
    return this.packages.get(id) ?? [];
  }

  private load(): void {
    const queue: string[] = [];
    const seen = new Set<string>();
    const visit = (id: string): void => {
      if (seen.has(id)) return;
      seen.add(id);
      queue.push(id);
    };
    for (const root of this.request.roots) visit(root.id);
    for (let i = 0; i < queue.length; i++) {
      const id = queue[i] as string;
      const listed = this.request.available(id);
      if (listed.length === 0) continue;
      this.rank.set(id, this.rank.size);
      const candidates: Candidate[] = [];
      const versionsSeen = new Set<string>();
      for (const source of listed) {
        const parsed = semver.parse(source.version);
        // A version that is not strict semver cannot be ordered or pinned: never a candidate.
        if (parsed === null || versionsSeen.has(source.version)) continue;
        const norm = parsed.version;
        versionsSeen.add(source.version);
        const deps = Object.entries(source.dependencies).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        for (const [dep] of deps) visit(dep);
        const prerelease = parsed.prerelease.length > 0;
        candidates.push({
          id,
          version: source.version,
          norm,
          parsed,
          source,
          deps,
          depMap: new Map(deps),
          needsPin: source.status === 'yanked' || (prerelease && this.request.includePrerelease !== true),
        });
      }
      candidates.sort((a, b) => b.parsed.compare(a.parsed) || b.parsed.compareBuild(a.parsed));
      this.packages.set(id, candidates);
    }
    this.decideExclusions();
  }

  private decideExclusions(): void {
    const pinned = new Set<string>();
    const notePin = (id: string, range: string): void => {
      const pin = this.book.exactPin(range);
      if (pin !== null) pinned.add(`${id}@${pin}`);
    };
    for (const root of this.request.roots) notePin(root.id, root.range);
    for (const candidates of this.packages.values()) {
      for (const c of candidates) for (const [dep, range] of c.deps) notePin(dep, range);
    }
    for (const [id, candidates] of this.packages) {
      for (const c of candidates) {
        const label = `${id} ${c.version}`;
        if (c.source.status === 'revoked') {
          // spec §11: revoked versions never.
          c.excluded = `${label} is revoked`;
          c.excludedKind = 'revoked';
          continue;
        }
        if (this.options.ignoreCompat !== true) {
          const compat = checkCompatibility({ ...c.source, id }, this.request.host);
          if (!compat.ok) {
            c.excluded = compat.reason.replace(/\.$/, '');
            c.excludedKind = 'incompatible';
            this.hasIncompatible = true;
            continue;
          }
        }
        const badRange = c.deps.find(([, range]) => !this.book.valid(range));
        if (badRange !== undefined) {
          c.excluded = `${label} declares "${badRange[1]}" for ${badRange[0]}, which is not a valid version range`;
          c.excludedKind = 'invalid-range';
          continue;
        }
        const absent = c.deps.filter(([dep]) => !this.packages.has(dep));
        if (absent.length > 0) {
          for (const [dep] of absent) {
            const needers = this.missing.get(dep) ?? new Set<string>();
            needers.add(label);
            this.missing.set(dep, needers);
          }
          if (this.options.ignoreMissing === true) {
            c.deps = c.deps.filter(([dep]) => this.packages.has(dep));
            c.depMap = new Map(c.deps);
          } else {
            c.excluded = `${label} needs ${absent.map(([dep]) => dep).join(', ')}, which does not exist`;
            c.excludedKind = 'missing';
            continue;
          }
        }
        // spec §11: yanked (and unrequested prerelease) versions only when pinned exactly; if no
        // range anywhere in the graph pins this one, no search path can make it usable.
        if (c.needsPin && !pinned.has(`${id}@${c.norm}`)) {
          c.excluded =
            c.source.status === 'yanked'
              ? `${label} is yanked and nothing pins it exactly`
              : `${label} is a prerelease and prereleases were not requested`;
          c.excludedKind = 'unpinned';
        }
      }
    }
  }
}

export function checkRoots(request: ResolveRequest, book: RangeBook): void {
  for (const root of request.roots) {
    if (!book.valid(root.range)) {
      throw new AdcapError(
        'E_USAGE',
        `"${root.range}" is not a valid version range for ${root.id}; use a semver range such as ^1.2.0, or * for any version.`,
        { details: { id: root.id, range: root.range } },
      );
    }
  }
}
