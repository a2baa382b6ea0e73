import { canonicalJson } from '../format/canonical-json.js';
import type { Permission } from '../format/manifest-types.js';
import { skillProgramsSentence, type SkillPrograms } from '../format/skill-repo.js';
import { describePermission, grantCovers, grantString } from '../permissions/index.js';
import { sha256Hex } from '../util/hash.js';

/** What a plan item does to a capability: install, upgrade, downgrade or reinstall. */
export type PlanAction = 'install' | 'upgrade' | 'downgrade' | 'reinstall';

/** Where a plan item comes from: a registry remote, or a local file (sideload). */
export type PlanSource = { kind: 'registry'; remote: string } | { kind: 'file'; file: string; unsigned: boolean; unknownSigner: boolean };

/** How a source is named to a person: `registry "examples"` or `the file /path/x.adcap`. */
export function describeSource(source: { kind: 'registry'; remote: string } | { kind: 'file'; file: string }): string {
  return source.kind === 'registry' ? `registry "${source.remote}"` : `the file ${source.file}`;
}

/** One capability the plan installs or changes. */
export interface PlanItem {
  /** The capability id. */
  id: string;
  /** The display name of this version (its registry entry, or the manifest of a file), for dialogs that name it. */
  name: string;
  /** The publisher's display name (the registry's catalogue; the publisher id for a file or when it gives none). */
  publisherName: string;
  /** The version the plan installs. */
  version: string;
  /** What happens to the capability. */
  action: PlanAction;
  /** The active version before, when the capability is installed. */
  from?: string;
  /** Asked for by the user (true) or pulled in as a dependency (false). */
  explicit: boolean;
  /** Where the version comes from. */
  source: PlanSource;
  /**
   * Set when the capability is installed from somewhere else today: the plan moves it to `source`
   * (only an explicit install from another remote does that, never an update).
   */
  previousSource?: PlanSource;
  /** The pin of the version's archive: its SHA-256 (hex) and size in bytes. */
  archive: { sha256: string; size: number };
  /** Bytes still to download (0 when the archive is already in the cache or on disk). */
  downloadSize: number;
  /** The SHA-256 of the canonical manifest the plan approves. */
  manifestSha256: string;
  /** Every permission this version declares. */
  permissions: Permission[];
  /** Those of `permissions` not already granted to the installed version. */
  newPermissions: Permission[];
  /** The product tier (spec §12). */
  tier: 'free' | 'pro';
  /** Whether the download needs the host's authorisation (spec §12). */
  access: 'public' | 'entitled';
  /** The entitlement the host's authoriser is asked about, for an `entitled` download. */
  entitlement?: string;
  /** Set when the registry marks the version yanked (only installed when pinned exactly). */
  yanked?: string;
  /** Set when the publisher deprecated the capability: their message. */
  deprecated?: string;
  /** Whether the version is a prerelease. */
  prerelease: boolean;
  /**
   * Skills of this version that ship programs (scripts, executables) an agent may run on the
   * user's computer outside any sandbox; absent when none do, or when the registry's
   * entry predates this field.
   */
  skillPrograms?: SkillPrograms[];
}

/** A permission in a plan: the declared permission, its text in plain language and its risk. */
export interface PlanPermission {
  /** The capability that asks for the permission. */
  id: string;
  /** The permission as the manifest declares it. */
  permission: Permission;
  /** The grant string that will be recorded, `id[:scope]`. */
  grant: string;
  /** Plain language for the dialog (DESIGN §5). */
  text: string;
  /** Why the capability needs it, in the publisher's words. */
  reason: string;
}

/** What `plan()` returns and what `approve` is asked about (host contract, "Install"). */
export interface Plan {
  /** One item per capability whose version changes (installed, upgraded, downgraded or reinstalled); none when nothing would change. */
  items: PlanItem[];
  /** The full resolution: every capability needed, including ones kept as installed. */
  versions: Record<string, string>;
  /** Every permission that the user has not granted yet, with its reason. */
  newPermissions: PlanPermission[];
  /** Bytes still to download for the whole plan. */
  downloadSize: number;
  /** Sentences to show beside the plan (yanked, deprecated, unsigned...); they do not stop it. */
  warnings: string[];
  /**
   * Why this plan cannot succeed on this host, said before anyone is asked to approve it (an
   * entitled download on a host with no authoriser); approval is refused while any is left.
   */
  blockers: string[];
  /** The plan in plain language, one line each, for a terminal or a dialog. */
  report: { lines: string[] };
  /** SHA-256 of the plan's substance: approval is bound to it. */
  digest: string;
}

export function newPermissionsOf(permissions: Permission[], granted: readonly string[]): Permission[] {
  return permissions.filter((p) => !granted.some((g) => grantCovers(g, grantString(p))));
}

export function finishPlan(
  items: PlanItem[],
  versions: Record<string, string>,
  extraWarnings: string[] = [],
  host: { canAuthorize: boolean } = { canAuthorize: true },
): Plan {
  const newPermissions: PlanPermission[] = items.flatMap((item) =>
    item.newPermissions.map((permission) => ({
      id: item.id,
      permission,
      grant: grantString(permission),
      text: describePermission(permission),
      reason: permission.reason,
    })),
  );
  const warnings = [...extraWarnings, ...items.flatMap(warningsOf)];
  const downloadSize = items.reduce((sum, item) => sum + item.downloadSize, 0);
  // The digest covers everything the user is shown and everything that decides what gets
  // installed and granted: ids, versions, archives, sources and permissions.
  const digest = sha256Hex(
    canonicalJson({
      items: items.map((i) => ({
        id: i.id,
        version: i.version,
        action: i.action,
        from: i.from ?? null,
        archive: i.archive,
        manifestSha256: i.manifestSha256,
        source: i.source,
        previousSource: i.previousSource ?? null,
        permissions: i.permissions.map((p) => ({ grant: grantString(p), reason: p.reason })),
      })),
      versions,
    }),
  );
  // spec §12: an entitled archive is only downloaded through the host's authoriser.
  const blockers = host.canAuthorize
    ? []
    : items
        .filter((item) => item.access === 'entitled')
        .map(
          (item) =>
            `${item.id} ${item.version} cannot be installed here: it needs a licence` +
            `${item.entitlement === undefined ? '' : ` (${item.entitlement})`} from its publisher, ` +
            'and there is no sign-in here to obtain one.',
        );
  const plan: Plan = { items, versions, newPermissions, downloadSize, warnings, blockers, report: { lines: [] }, digest };
  plan.report.lines = reportLines(plan);
  return plan;
}

function warningsOf(item: PlanItem): string[] {
  const label = `${item.id}@${item.version}`;
  const out: string[] = [];
  if (item.source.kind === 'file') {
    if (item.source.unsigned) out.push(`${label} is an UNSIGNED package from a local file: nobody vouches for its contents.`);
    else if (item.source.unknownSigner) out.push(`${label} is from a local file signed by a key no configured registry knows.`);
    else out.push(`${label} is installed from a local file (sideloaded), not from a registry.`);
  }
  if (item.yanked !== undefined)
    out.push(`${label} was yanked by its publisher (${item.yanked}); it is installed only because you asked for exactly this version.`);
  if (item.deprecated !== undefined) out.push(`${item.id} is deprecated: ${item.deprecated}`);
  if (item.tier === 'pro') out.push(`${item.id} is a Pro capability.`);
  if (item.access === 'entitled')
    out.push(`${item.id} needs an entitlement${item.entitlement === undefined ? '' : ` (${item.entitlement})`} to download.`);
  if (item.prerelease) out.push(`${label} is a prerelease.`);
  if (item.action === 'downgrade') out.push(`${item.id} goes back from ${item.from ?? '?'} to ${item.version}.`);
  if (item.previousSource !== undefined) {
    out.push(
      `${item.id} changes source: it now comes from ${describeSource(item.source)} instead ` +
        `of ${describeSource(item.previousSource)}, and its updates will come from there.`,
    );
  }
  return out;
}

function reportLines(plan: Plan): string[] {
  if (plan.items.length === 0) return ['Nothing to do: everything asked for is installed and up to date.'];
  const lines: string[] = plan.blockers.map((blocker) => `Cannot succeed: ${blocker}`);
  for (const item of plan.items) {
    const verb = { install: 'Install', upgrade: 'Update', downgrade: 'Downgrade', reinstall: 'Reinstall' }[item.action];
    const from = item.from === undefined ? '' : ` (from ${item.from})`;
    const why = item.explicit ? '' : ' as a dependency';
    const size = item.downloadSize > 0 ? `, ${formatBytes(item.downloadSize)} to download` : '';
    lines.push(`${verb} ${item.id} ${item.version}${from}${why}${size}`);
    if (item.previousSource !== undefined)
      lines.push(`  source changes: from ${describeSource(item.previousSource)} to ${describeSource(item.source)}`);
    for (const permission of item.newPermissions) {
      lines.push(`  new permission: ${describePermission(permission)} (${permission.reason})`);
    }
    // Skill programs run as the agent runs them, with the user's permissions, not in the sandbox.
    for (const entry of item.skillPrograms ?? []) lines.push(`  ${skillProgramsSentence(entry)}`);
  }
  if (plan.newPermissions.length === 0) lines.push('No new permissions.');
  lines.push(`Total download: ${formatBytes(plan.downloadSize)}`);
  for (const warning of plan.warnings) lines.push(`Warning: ${warning}`);
  return lines;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
