/**
 * `adcap add <source>` as one SDK call (docs/skills.md): fetch the source (source.ts), stage its skills
 * as they are (stage.ts), write the manifest, build and sign the package with the user's own key
 * (own-key.ts), show one plan and install it; `updateAdded` fetches again and shows what changed.
 * Nothing is installed unless every step before the install succeeded: a failure leaves the home
 * as it was (the build happens in a temporary folder; the install is one journaled operation).
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import semver from 'semver';
import { AdcapError } from '../errors.js';
import type { Manifest, Permission } from '../format/manifest-types.js';
import { buildPackage, type BuiltPackage } from '../format/package-build.js';
import { initSkillsRepository, skillProgramsOf } from '../format/skill-repo.js';
import { grantString } from '../permissions/index.js';
import type { Arcotheon } from '../store/arcotheon.js';
import { storeOf } from '../store/store-of.js';
import type { ApplyResult, LifecycleProgress } from '../store/applying.js';
import type { Plan } from '../store/plan.js';
import type { AddedOrigin, PackageState } from '../store/state.js';
import { PACKAGE_CONTEXT, signEnvelope } from '../trust/envelope.js';
import { splitCapabilityId } from '../util/capability-id.js';
import { removeTree } from '../util/fs-tree.js';
import { ownPublisherKey, type OwnKey } from './own-key.js';
import { fetchSource, parseSource, suggestedId, type FetchedSource, type SourceSpec } from './source.js';
import { stageSkillsRepository, type LeftOut, type StagedSkill } from './stage.js';

export interface AddOptions {
  /** The folder relative sources are read against. */
  cwd: string;
  /** The user's configuration folder, where their own publisher key lives (userConfigDir()). */
  configDir: string;
  /** The capability id (default: owner/repo of the source, or local/<folder>). */
  id?: string;
  /** Only these skills of the source (by name or folder name). */
  skills?: string[];
  /** A branch, tag or commit of a git source. */
  ref?: string;
  /** Where owner/repo points (default https://github.com/). */
  githubBase?: string;
  /** Asked once with everything the add will do; nothing is installed unless it returns true. */
  approve: (plan: AddPlan) => boolean | Promise<boolean>;
  onProgress?: (progress: LifecycleProgress) => void;
}

/** What an add or an update of an added capability will do, shown before anything is installed. */
export interface AddPlan {
  id: string;
  version: string;
  origin: AddedOrigin;
  skills: StagedSkill[];
  leftOut: LeftOut[];
  /** Skill programs an agent may run, per skill. */
  programs: Array<{ skill: string; programs: string[] }>;
  /** The install plan (items, permissions) the SDK applies. */
  plan: Plan;
  /** Set for an update: what changed since the installed version. */
  changes?: AddChanges;
  /** True when this add made the user's own key (first use). */
  keyCreated: boolean;
  /** Notes the build printed (Git LFS pointers, files that look like secrets). */
  warnings: string[];
}

export interface AddChanges {
  from: { version: string; commit?: string };
  skillsAdded: string[];
  skillsRemoved: string[];
  skillsChanged: string[];
  /** `skill/path` of each program an agent may run that the installed version did not have. */
  programsAdded: string[];
  permissionsAdded: string[];
}

export interface AddResult extends ApplyResult {
  id: string;
  version: string;
  origin: AddedOrigin;
  skills: StagedSkill[];
  leftOut: LeftOut[];
  changes?: AddChanges;
  /** For an update: true when the source had nothing new (nothing was installed). */
  upToDate?: boolean;
}

interface Prepared {
  fetched: FetchedSource;
  built: BuiltPackage;
  origin: AddedOrigin;
  skills: StagedSkill[];
  leftOut: LeftOut[];
  own: OwnKey;
  dispose(): Promise<void>;
}

/** `adcap add`: brings the skills of `source` in, signed with the user's own key, after one approval. */
export async function addCapability(arc: Arcotheon, source: string, options: AddOptions): Promise<AddResult> {
  const spec = parseSource(source, { cwd: options.cwd, ...(options.githubBase === undefined ? {} : { githubBase: options.githubBase }) });
  if (spec.kind === 'adcap')
    throw new AdcapError(
      'E_USAGE',
      `${spec.file} is a package already; install it with arc.install({ file }) and link it with arc.linkSkills().`,
    );
  const withRef: SourceSpec = spec.kind === 'git' && options.ref !== undefined ? { ...spec, ref: options.ref } : spec;
  const onlySkill =
    options.skills?.length === 1 ? options.skills[0] : spec.kind === 'git' && spec.path !== undefined ? lastPart(spec.path) : undefined;
  const id = options.id ?? suggestedId(withRef, onlySkill);
  if (splitCapabilityId(id) === null)
    throw new AdcapError('E_USAGE', `--id ${JSON.stringify(id)} is not publisher/name (lowercase letters, digits and single hyphens).`);
  const state = await storeOf(arc)
    .state(id)
    .catch(() => null);
  if (state !== null && state.versions[state.active]?.source.kind !== 'file')
    throw new AdcapError(
      'E_CONFLICT',
      `${id} is installed from a registry; give the added one another id with --id, or uninstall ${id} first.`,
    );
  const prepared = await prepare(withRef, id, nextVersion(state), options);
  try {
    return await install(arc, prepared, id, options, state === null ? undefined : await changesSince(arc, id, state, prepared));
  } finally {
    await prepared.dispose();
  }
}

/**
 * `adcap update` of an added capability: fetches its source again (the same URL, branch or folder),
 * and when something changed, installs the new package after `approve` accepts it. Callers ask the
 * user only when programs or permissions grew (AddChanges) (docs/skills.md "Update and rollback").
 */
export async function updateAdded(
  arc: Arcotheon,
  id: string,
  options: Omit<AddOptions, 'id' | 'skills' | 'ref' | 'cwd'> & { cwd?: string },
): Promise<AddResult> {
  const state = await storeOf(arc).state(id);
  const origin = addedOrigin(state);
  if (origin === undefined)
    throw new AdcapError('E_USAGE', `${id} was not brought in with "adcap add"; update it with "adcap update ${id}".`);
  if (origin.kind === 'mcpb')
    // An imported MCP Bundle is a file, not a source to fetch again: its new version comes as a new file.
    throw new AdcapError(
      'E_USAGE',
      `${id} was imported from the MCP Bundle ${origin.source}; to update it, add the bundle's new file with "adcap add <file.mcpb>".`,
    );
  const spec: SourceSpec =
    origin.kind === 'git'
      ? {
          kind: 'git',
          url: origin.url ?? origin.source,
          display: origin.source,
          ...(origin.ref === undefined ? {} : { ref: origin.ref }),
          ...(origin.path === undefined ? {} : { path: origin.path }),
        }
      : { kind: 'folder', path: origin.source, display: origin.source };
  const prepared = await prepare(spec, id, nextVersion(state), {
    configDir: options.configDir,
    ...(origin.skills === undefined ? {} : { skills: origin.skills }),
  });
  try {
    const changes = await changesSince(arc, id, state, prepared);
    const manifest = await arc.installedManifest(id);
    const sameFiles = JSON.stringify(filesOf(manifest)) === JSON.stringify(filesOf(prepared.built.manifest));
    if (sameFiles && (origin.commit === undefined || origin.commit === prepared.origin.commit || nothingChanged(changes))) {
      const plan = await arc.plan({ packages: [] }).catch(() => null);
      return {
        id,
        version: state.active,
        origin,
        skills: prepared.skills,
        leftOut: prepared.leftOut,
        changes,
        upToDate: true,
        applied: false,
        installed: [],
        plan: plan ?? emptyPlan(),
      };
    }
    return await install(arc, prepared, id, options, changes);
  } finally {
    await prepared.dispose();
  }
}

/** The origin of the active version of an added capability, or undefined. */
export function addedOrigin(state: PackageState): AddedOrigin | undefined {
  const source = state.versions[state.active]?.source;
  return source?.kind === 'file' ? source.added : undefined;
}

async function prepare(
  spec: SourceSpec,
  id: string,
  version: string,
  options: Pick<AddOptions, 'configDir' | 'skills'>,
): Promise<Prepared> {
  const own = await ownPublisherKey(options.configDir);
  const work = await mkdtemp(join(tmpdir(), 'adcap-add-build-'));
  let fetched: FetchedSource | undefined;
  const dispose = async (): Promise<void> => {
    await fetched?.dispose().catch(() => undefined);
    await removeTree(work).catch(() => undefined);
  };
  try {
    fetched = await fetchSource(spec, { tempDir: work });
    const stage = join(work, 'stage');
    const staged = await stageSkillsRepository(fetched.root, stage, {
      path: fetched.path,
      ...(options.skills === undefined ? {} : { only: options.skills }),
    });
    if (staged.skills.length === 0) {
      throw new AdcapError(
        'E_SEMANTIC',
        `No skill of ${spec.display} can be packaged: ` +
          `${staged.leftOut.map((l) => `${l.path} [${l.rule}] ${l.message}`).join('; ')}. Nothing was added.`,
        { details: { leftOut: staged.leftOut } },
      );
    }
    await initSkillsRepository(stage, { id, version, force: true });
    const built = await buildPackage(stage, {
      out: join(work, 'package.adcap'),
      envelopeFor: (payload) => signEnvelope(payload, PACKAGE_CONTEXT, [own.key]),
    });
    const origin: AddedOrigin = {
      source: spec.display,
      kind: spec.kind === 'git' ? 'git' : 'folder',
      ...(spec.kind === 'git' ? { url: spec.url } : {}),
      ...(spec.kind === 'git' && spec.ref !== undefined ? { ref: spec.ref } : {}),
      ...(fetched.commit === undefined ? {} : { commit: fetched.commit }),
      ...(fetched.path === '' ? {} : { path: fetched.path }),
      ...(options.skills === undefined || options.skills.length === 0 ? {} : { skills: [...options.skills] }),
      keyId: own.trusted.keyId,
    };
    return { fetched, built, origin, skills: staged.skills, leftOut: staged.leftOut, own, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

async function install(
  arc: Arcotheon,
  prepared: Prepared,
  id: string,
  options: Pick<AddOptions, 'approve' | 'onProgress'>,
  changes: AddChanges | undefined,
): Promise<AddResult> {
  const request = { file: prepared.built.file, added: { origin: prepared.origin, ownKey: prepared.own.trusted } };
  const manifest = prepared.built.manifest;
  const result = await arc.install(request, {
    approve: (plan) =>
      options.approve({
        id,
        version: manifest.version,
        origin: prepared.origin,
        skills: prepared.skills,
        leftOut: prepared.leftOut,
        programs: skillProgramsOf(manifest),
        plan,
        ...(changes === undefined ? {} : { changes }),
        keyCreated: prepared.own.created,
        warnings: prepared.built.warnings.map((w) => w.message),
      }),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  });
  return {
    ...result,
    id,
    version: manifest.version,
    origin: prepared.origin,
    skills: prepared.skills,
    leftOut: prepared.leftOut,
    ...(changes === undefined ? {} : { changes }),
  };
}

/** 0.1.0 for a first add; then one patch above every version on disk, so rollback has each earlier commit's package. */
function nextVersion(state: PackageState | null): string {
  if (state === null) return '0.1.0';
  const versions = [state.active, ...state.history, ...Object.keys(state.versions)].filter((v) => semver.valid(v) !== null);
  const top = versions.sort(semver.rcompare)[0] ?? '0.0.0';
  return semver.inc(top, 'patch') ?? '0.1.0';
}

async function changesSince(arc: Arcotheon, id: string, state: PackageState, prepared: Prepared): Promise<AddChanges> {
  const before = await arc.installedManifest(id);
  const after = prepared.built.manifest;
  const skillFiles = (m: Manifest): Map<string, string> => {
    const out = new Map<string, string>();
    for (const skill of m.skills ?? []) {
      const prefix = `${skill.path}/`;
      const files = m.files
        .filter((f) => f.path.startsWith(prefix))
        .map((f) => `${f.path.slice(prefix.length)}:${f.sha256}:${f.executable === true}`);
      out.set(lastPart(skill.path), files.join('\n'));
    }
    return out;
  };
  const a = skillFiles(before);
  const b = skillFiles(after);
  const programs = (m: Manifest): Set<string> => new Set(skillProgramsOf(m).flatMap((s) => s.programs.map((p) => `${s.skill}/${p}`)));
  const had = programs(before);
  const grants = (p: Permission[] | undefined): Set<string> => new Set((p ?? []).map(grantString));
  const granted = grants(before.permissions);
  const commit = addedOrigin(state)?.commit;
  return {
    from: { version: state.active, ...(commit === undefined ? {} : { commit }) },
    skillsAdded: [...b.keys()].filter((s) => !a.has(s)).sort(),
    skillsRemoved: [...a.keys()].filter((s) => !b.has(s)).sort(),
    skillsChanged: [...b.keys()].filter((s) => a.has(s) && a.get(s) !== b.get(s)).sort(),
    programsAdded: [...programs(after)].filter((p) => !had.has(p)).sort(),
    permissionsAdded: [...grants(after.permissions)].filter((g) => !granted.has(g)).sort(),
  };
}

function nothingChanged(c: AddChanges): boolean {
  return c.skillsAdded.length + c.skillsRemoved.length + c.skillsChanged.length + c.programsAdded.length + c.permissionsAdded.length === 0;
}

function filesOf(m: Manifest): string[] {
  return m.files.filter((f) => f.path !== 'capability.json').map((f) => `${f.path}:${f.sha256}:${f.executable === true}`);
}

function emptyPlan(): Plan {
  return {
    items: [],
    versions: {},
    newPermissions: [],
    downloadSize: 0,
    warnings: [],
    report: { lines: [] },
    digest: '',
  } as unknown as Plan;
}

function lastPart(path: string): string {
  return (
    path
      .split('/')
      .filter((s) => s !== '')
      .pop() ?? path
  );
}
