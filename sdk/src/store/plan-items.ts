/**
 * The pieces a plan (spec §6 approval, host contract "Install") is made of: plan items from a
 * registry entry or a sideload, the resolver's view of an installed or sideloaded version, and
 * where each installed capability may come from.
 */
import semver from 'semver';
import type { Manifest } from '../format/manifest-types.js';
import { skillProgramsOf, type SkillPrograms } from '../format/skill-repo.js';
import type { DocumentVersion } from '../registry/types.js';
import type { CandidateVersion } from '../resolve/types.js';
import { newPermissionsOf, type PlanAction, type PlanItem, type PlanSource } from './plan.js';
import type { SideloadCandidate } from './sideload.js';
import type { LocatedPackage } from './sources.js';
import type { PackageState } from './state.js';

/**
 * Where each installed capability may come from: the remote it was installed
 * from, or no registry for a sideload, unless the request names a remote for it (`requested`) or,
 * for a sideload, asks for it by id (explicitly choosing a registry). Unpinned ids (new ones) come
 * from the first remote that lists them.
 */
export function sourcePins(
  installed: Map<string, PackageState | null>,
  requested: ReadonlyMap<string, string>,
  explicitIds: ReadonlySet<string>,
): Map<string, string | null> {
  const pins = new Map<string, string | null>(requested);
  for (const [id, state] of installed) {
    if (state === null || pins.has(id)) continue;
    const source = state.versions[state.active]?.source;
    if (source?.kind === 'registry') pins.set(id, source.remote);
    else if (source?.kind === 'file' && !explicitIds.has(id)) pins.set(id, null);
  }
  return pins;
}

/** The installed version's source when `next` differs from it (a move), else undefined. */
export function movedFrom(
  state: PackageState,
  next: { kind: 'registry'; remote: string } | { kind: 'file'; file: string } | undefined,
): PlanSource | undefined {
  const current = state.versions[state.active]?.source;
  if (current === undefined || next === undefined) return undefined;
  if (current.kind === 'registry') {
    if (next.kind === 'registry' && next.remote === current.remote) return undefined;
    return { kind: 'registry', remote: current.remote };
  }
  // A sideload replaced by another local file is not a change of source kind worth a warning.
  if (next.kind === 'file') return undefined;
  return { kind: 'file', file: current.file, unsigned: current.unsigned, unknownSigner: current.unknownSigner };
}

/** The constraint an installed explicit capability keeps: the range asked for; a sideload its own version. */
export function rootRange(state: PackageState): string {
  if (state.versions[state.active]?.source.kind === 'file') return `=${state.active}`;
  const range = state.range ?? '*';
  // A version the user rolled back to may lie outside the range they once asked for: another
  // capability's install keeps it (DESIGN §8: an install changes only what it names and needs);
  // only an update or an install of this capability moves it forward again.
  if (!semver.satisfies(state.active, range, { includePrerelease: true })) return `${range} || =${state.active}`;
  return range;
}

/** A version as the resolver sees it, from its own manifest (a sideload, or an installed version). */
export function candidateOfManifest(manifest: Manifest): CandidateVersion {
  return {
    version: manifest.version,
    dependencies: manifest.dependencies ?? {},
    ...(manifest.compat === undefined ? {} : { compat: manifest.compat }),
    hasTools: (manifest.tools ?? []).length > 0,
  };
}

export function sideloadItem(
  s: SideloadCandidate,
  action: PlanAction,
  state: PackageState | null,
  explicit: boolean,
  granted: string[],
): PlanItem {
  const permissions = s.manifest.permissions ?? [];
  return {
    id: s.manifest.id,
    name: s.manifest.name,
    publisherName: s.manifest.id.split('/')[0] ?? s.manifest.id,
    version: s.manifest.version,
    action,
    ...(state === null ? {} : { from: state.active }),
    explicit,
    source: { kind: 'file', file: s.file, unsigned: s.unsigned, unknownSigner: s.unknownSigner },
    archive: { sha256: s.archiveSha256, size: s.size },
    downloadSize: 0,
    manifestSha256: s.manifestSha256,
    permissions,
    newPermissions: newPermissionsOf(permissions, granted),
    tier: s.manifest.distribution?.tier ?? 'free',
    access: s.manifest.distribution?.access ?? 'public',
    prerelease: semver.prerelease(s.manifest.version) !== null,
    ...withPrograms(skillProgramsOf(s.manifest)),
  };
}

export function registryItem(
  place: LocatedPackage,
  entry: DocumentVersion,
  action: PlanAction,
  state: PackageState | null,
  explicit: boolean,
  granted: string[],
  downloadSize: number,
): PlanItem {
  return {
    id: entry.id,
    name: entry.name,
    publisherName: place.publisherName,
    version: entry.version,
    action,
    ...(state === null ? {} : { from: state.active }),
    explicit,
    source: { kind: 'registry', remote: place.remote },
    archive: { sha256: entry.archive.sha256, size: entry.archive.size },
    downloadSize,
    manifestSha256: entry.manifestSha256,
    permissions: entry.permissions,
    newPermissions: newPermissionsOf(entry.permissions, granted),
    tier: entry.tier,
    access: entry.access,
    ...(entry.entitlement === undefined ? {} : { entitlement: entry.entitlement }),
    ...(entry.status === 'yanked' ? { yanked: entry.statusReason ?? 'no reason given' } : {}),
    ...(place.doc.deprecated === undefined ? {} : { deprecated: place.doc.deprecated.message }),
    prerelease: semver.prerelease(entry.version) !== null,
    ...withPrograms(entry.contents.skillPrograms ?? []),
  };
}

/** The plan names the skills that ship programs (none: no field). */
function withPrograms(programs: SkillPrograms[]): { skillPrograms?: SkillPrograms[] } {
  return programs.length > 0 ? { skillPrograms: programs } : {};
}
