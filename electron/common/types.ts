/**
 * The data that crosses the host API boundary, as plain JSON-shaped interfaces (no classes, no
 * Dates, no Node types). They mirror the SDK's public types where the SDK already has one; the
 * host service checks at compile time that what the SDK returns is assignable to them
 * (electron/host/conformance.ts), so the two cannot drift apart silently.
 *
 * Text in these values (names, summaries, descriptions, readmes, reasons, tool output) comes
 * from packages and registries and is hostile: render it as text (Markdown without raw HTML),
 * never as HTML.
 */

/**
 * The stable error codes of DESIGN §9, as the SDK's `ErrorCode` lists them (sdk/src/errors.ts). The
 * contract imports nothing from the SDK (DESIGN §2), so the list is spelled here;
 * electron/host/conformance.ts stops `tsc` when the two differ.
 */
export type ErrorCode =
  | 'E_GZIP'
  | 'E_TAR'
  | 'E_ENTRY_TYPE'
  | 'E_PATH'
  | 'E_DUPLICATE'
  | 'E_ORDER'
  | 'E_LIMIT'
  | 'E_JSON'
  | 'E_VERSION_MAJOR'
  | 'E_SCHEMA'
  | 'E_SEMANTIC'
  | 'E_HASH'
  | 'E_UNLISTED'
  | 'E_MISSING'
  | 'E_SIGNATURE'
  | 'E_UNTRUSTED'
  | 'E_REVOKED'
  | 'E_CATALOG'
  | 'E_ROLLBACK'
  | 'E_STALE'
  | 'E_DOC_HASH'
  | 'E_DOWNLOAD'
  | 'E_IMMUTABLE'
  | 'E_RESOLVE'
  | 'E_INCOMPATIBLE'
  | 'E_DENIED'
  | 'E_ENTITLEMENT'
  | 'E_LOCKED'
  | 'E_DEPENDENTS'
  | 'E_NOT_INSTALLED'
  | 'E_NOT_FOUND'
  | 'E_INPUT'
  | 'E_OUTPUT'
  | 'E_TIMEOUT'
  | 'E_OUTPUT_LIMIT'
  | 'E_RUNTIME_UNSUPPORTED'
  | 'E_NOT_GRANTED'
  | 'E_SANDBOX_UNAVAILABLE'
  | 'E_TOOL'
  | 'E_PROTOCOL'
  | 'E_DISABLED'
  | 'E_POLICY'
  | 'E_USAGE'
  | 'E_IO'
  | 'E_CANCELLED'
  | 'E_HOST_CALLBACK'
  | 'E_CONFLICT';

export interface HostError {
  code: ErrorCode;
  /** One sentence a person can act on, worded for the manager UI (buttons and screens, no commands). */
  message: string;
  /** The next step for this cause of the code, when it differs from the code's usual one. */
  next?: string;
  /** Plain data about the failure, e.g. `{ dependents: [...] }` for E_DEPENDENTS. */
  details?: Record<string, unknown>;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: HostError };

export type Tier = 'free' | 'pro';
export type Access = 'public' | 'entitled';
export type RiskLevel = 'low' | 'medium' | 'high';
export type PermissionId = 'fs:read' | 'fs:write' | 'net:connect' | 'process:exec' | 'env:read' | 'storage:data';

/** A permission as the manifest declares it. */
export interface PermissionData {
  id: PermissionId;
  scope?: string;
  /** The publisher's reason, in their words (hostile text). */
  reason: string;
}

/** A permission ready for display: plain sentence first, the publisher's reason, the id last. */
export interface PermissionView {
  id: PermissionId;
  scope?: string;
  /** `id[:scope]`, the technical id shown small. */
  grant: string;
  /** Plain language from the permission table (never from the publisher). */
  text: string;
  /** From the permission table, never from the publisher. */
  risk: RiskLevel;
  reason: string;
  /** Installed views: whether the capability holds this grant now. */
  granted?: boolean;
}

/**
 * One overall risk verdict (sdk capabilityRisk): the highest risk of a capability's permissions,
 * those of the dependencies installing it pulls in, and its skills' programs (run outside the
 * sandbox: high), with the sentence that says what sets it.
 */
export interface RiskVerdict {
  level: RiskLevel | 'none';
  /** "High: a dependency, Net helper (acme/net), may connect to any server on the internet." */
  reason: string;
  /** Everything counted, highest first. */
  factors: Array<{ level: RiskLevel; id: string; dependency: boolean; kind: 'permission' | 'programs'; subject: string; text: string }>;
  /** Dependencies whose permissions could not be read (the verdict may be too low by them). */
  unknown: string[];
}

// ------------------------------------------------------------------ catalogue

/** What the Discover screen's search filters on (renderer/src/search runs it over `catalogue.index`). */
export interface CatalogueFilters {
  tier?: Tier;
  access?: Access;
  installed?: boolean;
  hasTools?: boolean;
  hasSkills?: boolean;
  hasWorkflows?: boolean;
  includeDeprecated?: boolean;
}

/** Counts over the matches of the query text with every filter applied except the facet's own. */
export interface CatalogueFacets {
  tier: { free: number; pro: number };
  access: { public: number; entitled: number };
  installed: { yes: number; no: number };
  hasTools: number;
  hasSkills: number;
  hasWorkflows: number;
}

/**
 * One capability in the search index of the Discover screen (`catalogue.index`), as a tuple to keep
 * a 100,000-entry index small on the wire: id, name, summary, keywords, latest stable version,
 * latest prerelease, flags (CATALOGUE_FLAGS), publisher (an index into the page's `publishers`,
 * which `offset` 0 carries) and remote (an index into `remotes`).
 */
export type CatalogueIndexRow = [
  id: string,
  name: string,
  summary: string,
  keywords: string[],
  latest: string | null,
  latestPrerelease: string | null,
  flags: number,
  publisher: number,
  remote: number,
];

/** The bits of CatalogueIndexRow's flags. */
export const CATALOGUE_FLAGS = { pro: 1, entitled: 2, deprecated: 4 } as const;

/**
 * A page of `catalogue.index`: every capability of every remote (the first remote listing an id
 * wins), in browsing order (deprecated last, then by name, then id), for the page to search as the user types (docs/ui.md "Fast";
 * the ranking is search-rank.ts). The page loads it once per `revision` and searches it in a worker.
 */
export interface CatalogueIndexPage {
  /** Changes when any remote's catalogue does; a page of another revision is not mixed in. */
  revision: string;
  total: number;
  offset: number;
  /** Publishers the rows point to (only in the page at offset 0; empty in the others). */
  publishers: Array<{ id: string; name: string; verified: boolean }>;
  /** Remote names the rows point to (only in the page at offset 0). */
  remotes: string[];
  rows: CatalogueIndexRow[];
}

/**
 * `catalogue.known`: what this computer knows beyond the catalogue, for the Discover screen's cards,
 * filters and sorts: installed versions, and what the package documents read so far say (contents
 * and when the newest version was published).
 */
export interface CatalogueKnownData {
  revision: string;
  installed: Array<{ id: string; version: string; updateAvailable: boolean }>;
  learned: Array<{ id: string; tools: number; skills: number; workflows: number; updatedAt: string | null }>;
  /** Capabilities whose package document has not been read (yet); reading stops at 2,000. */
  unread: number;
}

/** One card's overall risk (`catalogue.risks`): the verdict of its page, without the factors. */
export interface CardRiskView {
  id: string;
  level: RiskLevel | 'none';
  /** "High: a dependency, Fetcher (acme/fetcher), may connect to any server on the internet." */
  reason: string;
  /** Some dependency could not be read: the level may be too low (the reason says so). */
  incomplete: boolean;
}

/**
 * `catalogue.risks`: verdicts for the cards the page shows, computed on the host once per catalogue
 * content and installed versions; a new `revision` means earlier verdicts are stale.
 */
export interface CardRiskData {
  revision: string;
  verdicts: CardRiskView[];
}

export interface EntryContentsData {
  skills: string[];
  tools: string[];
  workflows: string[];
  knowledge: string[];
  resources: Array<{ id: string; size: number }>;
  /** Skills that ship programs an agent may run outside the sandbox (absent in older entries). */
  skillPrograms?: Array<{ skill: string; programs: string[] }>;
}

export interface CompatData {
  platforms?: string[];
  agents?: Record<string, string>;
  runtimes?: { node?: string; python?: string };
}

/** One version in a registry's package document (the SDK's DocumentVersion). */
export interface DocumentVersionData {
  id: string;
  version: string;
  manifestSha256: string;
  archive: { sha256: string; size: number; urls: string[] };
  signers: string[];
  tier: Tier;
  access: Access;
  entitlement?: string;
  compat: CompatData;
  dependencies: Record<string, string>;
  permissions: PermissionData[];
  contents: EntryContentsData;
  changelog?: string;
  publishedAt: string;
  name: string;
  summary: string;
  keywords: string[];
  status?: 'yanked' | 'revoked';
  statusReason?: string;
}

/** `catalogue.show`: the verified package document of a capability. */
export interface PackageDocumentData {
  id: string;
  deprecated?: { message: string };
  versions: Record<string, DocumentVersionData>;
  remote: string;
}

/** One version of a capability, newest first in `CapabilityDetail.versions`. */
export interface VersionView {
  version: string;
  publishedAt: string;
  prerelease: boolean;
  yanked: string | null;
  revoked: string | null;
  /** The capability is deprecated (applies to every version). */
  deprecated: string | null;
  changelog: string | null;
  archiveSize: number;
  installed: boolean;
  latest: boolean;
}

export interface ToolView {
  name: string;
  description: string;
  /** The tool's JSON Schema for its input (draft 2020-12), for a generated form. */
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown> | null;
  runtime: string;
  /** Grants (`id[:scope]`) the tool needs. */
  permissions: string[];
}

export interface WorkflowView {
  id: string;
  name: string;
  description: string;
  /** JSON Schema of the workflow's inputs, when the document declares one. */
  inputSchema: Record<string, unknown> | null;
  steps: Array<{ id: string; kind: 'tool' | 'agent'; tool?: string; capability?: string }>;
}

export interface SkillView {
  path: string;
  name: string;
  description: string;
  /** Files in the skill that are programs an agent may run outside Arcotheon's sandbox. */
  programs: string[];
  /** Installed only: the skill's folder on this computer. */
  directory?: string;
}

export interface ResourceView {
  id: string;
  size: number;
  lazy: boolean;
  format?: string;
  description?: string;
}

/** What the package itself says (read from the verified archive or the installed files). */
export interface PackageContentsView {
  description: string | null;
  /** The readme's Markdown (hostile: render without raw HTML). */
  readme: string | null;
  license: string | null;
  homepage: string | null;
  repository: string | null;
  tools: ToolView[];
  skills: SkillView[];
  workflows: WorkflowView[];
  knowledge: Array<{ id: string; kind: string; description?: string }>;
  resources: ResourceView[];
}

/** `catalogue.detail`: everything the capability page shows. */
export interface CapabilityDetail {
  id: string;
  remote: string;
  name: string;
  summary: string;
  publisher: { id: string; name: string; verified: boolean };
  /** The version the page describes (the requested one, else the latest). */
  version: string;
  tier: Tier;
  access: Access;
  deprecated: string | null;
  versions: VersionView[];
  permissions: PermissionView[];
  dependencies: Array<{ id: string; range: string }>;
  compat: CompatData;
  /** Whether this computer meets `compat`, and if not why. */
  compatible: { ok: boolean; reason: string | null };
  signers: Array<{ keyId: string; status: 'active' | 'revoked' | 'unknown' }>;
  contents: EntryContentsData;
  /** Null when the archive is not available without a download the host did not make (entitled, too large). */
  /**
   * Read from installed files or an archive already in the cache; null until downloaded (the page
   * is drawn from metadata: the catalogue and the package document, never a download).
   */
  package: PackageContentsView | null;
  packageUnavailable: string | null;
  installed: { version: string; updateAvailable: string | null } | null;
  /** The overall risk of installing it: its permissions, its dependencies' and its skills' programs. */
  risk: RiskVerdict;
}

// ------------------------------------------------------------------ install plans

export type PlanAction = 'install' | 'upgrade' | 'downgrade' | 'reinstall';

export interface PlanItemData {
  id: string;
  /** The display name of this version (registry entry or the file's manifest): hostile text, shown as text. */
  name: string;
  /** The publisher's display name from the registry's catalogue (the publisher id for a file). */
  publisherName: string;
  version: string;
  action: PlanAction;
  from?: string;
  explicit: boolean;
  source:
    | { kind: 'registry'; remote: string }
    | {
        kind: 'file';
        file: string;
        unsigned: boolean;
        unknownSigner: boolean;
        /** Built on this computer and signed with the user's own key (an imported MCP Bundle): no registry vouches for it. */
        addedByYou?: boolean;
      };
  /** Set when the plan moves an installed capability to another registry or file (a change of source). */
  previousSource?: { kind: 'registry'; remote: string } | { kind: 'file'; file: string; unsigned: boolean; unknownSigner: boolean };
  /** Skills that carry programs an agent may run outside any sandbox. */
  skillPrograms?: Array<{ skill: string; programs: string[] }>;
  archive: { sha256: string; size: number };
  downloadSize: number;
  manifestSha256: string;
  permissions: PermissionData[];
  newPermissions: PermissionData[];
  tier: Tier;
  access: Access;
  entitlement?: string;
  yanked?: string;
  deprecated?: string;
  prerelease: boolean;
}

export interface PlanPermissionData {
  /** The capability asking. */
  id: string;
  permission: PermissionData;
  grant: string;
  text: string;
  reason: string;
  /** From the permission table, never from the publisher. */
  risk: RiskLevel;
}

export interface PlanData {
  items: PlanItemData[];
  versions: Record<string, string>;
  newPermissions: PlanPermissionData[];
  downloadSize: number;
  warnings: string[];
  /** Why this plan cannot succeed here (said before approval; Install is refused while any is left). */
  blockers: string[];
  report: { lines: string[] };
  /** Send this back as `approvedDigest` to install exactly this plan. */
  digest: string;
  /** The overall risk of what the plan installs (every item: permissions and skills' programs). */
  risk: RiskVerdict;
}

export interface ApplyResultData {
  plan: PlanData;
  applied: boolean;
  installed: Array<{ id: string; version: string }>;
}

export interface UpdateResultData extends ApplyResultData {
  needsApproval: boolean;
}

// ------------------------------------------------------------------ installed

export type InstallSourceData =
  | { kind: 'registry'; remote: string; signedBy: string[] }
  | { kind: 'file'; file: string; signedBy: string[]; unsigned: boolean; unknownSigner: boolean; added?: AddedOriginData };

/** Where a capability brought in with `adcap add` came from (docs/skills.md): source, git URL, commit, your key. */
export interface AddedOriginData {
  source: string;
  /** mcpb: an MCP Bundle file imported (docs/spec/mcp-runtime.md "MCP Bundles"). */
  kind: 'git' | 'folder' | 'mcpb';
  url?: string;
  ref?: string;
  commit?: string;
  path?: string;
  skills?: string[];
  keyId: string;
}

export interface InstalledCapabilityData {
  id: string;
  version: string;
  /** "damaged": its state file cannot be read; `damaged` says what a repair (Health, Fix) would do. */
  status: 'ok' | 'unsigned' | 'unknown-signer' | 'sideloaded' | 'damaged';
  grants: string[];
  explicit: boolean;
  history: string[];
  source: InstallSourceData;
  damaged?: { problem: string; repair: string };
}

export type InstalledHealth = 'ok' | 'update-available' | 'broken' | 'revoked';

/** `installs.overview`: one row of the Installed screen. */
export interface InstalledSummary {
  id: string;
  name: string;
  summary: string;
  version: string;
  health: InstalledHealth;
  /** Why it is broken or revoked, in a sentence. */
  healthReason: string | null;
  /** The newest version the catalogue offers within the installed range, when newer. */
  updateAvailable: string | null;
  /** 'ok' | 'unsigned' | 'unknown-signer' | 'sideloaded': where the active version came from. */
  origin: InstalledCapabilityData['status'];
  explicit: boolean;
  grants: string[];
  source: InstallSourceData;
  /** Set for a capability brought in with `adcap add`: "added by you from <source> at <commit>" (docs/skills.md). */
  addedFrom?: string;
  /** Set while the capability is switched off (by the user or by the policy). */
  disabled?: DisabledMarkData;
  /** Set when the organisation's policy manages this capability. */
  managed?: ManagedMarkData;
}

export interface DisabledMarkData {
  at: string;
  by: 'user' | 'policy';
  rule?: string;
}

export interface ManagedMarkData {
  text: string;
  required?: string;
  blocked?: string;
  deniedGrants?: string[];
}

/** `installs.disable` / `installs.enable`. */
export interface EnablementResultData {
  id: string;
  enabled: boolean;
  changed: boolean;
  disabled?: DisabledMarkData;
}

// ------------------------------------------------------------------ organisation policy

/** What `policy.apply` did (the SDK's PolicyApplyResult), and what it could not do. */
export interface PolicyApplyData {
  policy: { path: string; source: 'system' | 'environment' } | null;
  disabled: Array<{ id: string; rule: string }>;
  enabled: string[];
  installed: Array<{ id: string; version: string }>;
  updated: Array<{ id: string; version: string }>;
  awaitingApproval: string[];
  failed: Array<{ id: string; code: string; message: string }>;
}

/** `policy.show`: the policy in force, where it came from, and the last time the host applied it. */
export interface PolicyStatusData {
  /** Null when no policy is in force (or when it is invalid: then `error` says why). */
  policy: {
    path: string;
    source: 'system' | 'environment';
    organisation: string | null;
    contact: string | null;
    /** The policy as lines a person reads (what `adcap policy` prints). */
    lines: string[];
    /** The registries it allows (null: it says nothing about registries). */
    remotes: string[] | null;
    required: string[];
    /** Suggested on Discover's first screen ("Recommended by <organisation>"); nothing is installed. */
    recommended: string[];
    blocked: string[];
    deniedPermissions: string[];
  } | null;
  /** E_POLICY when the policy file exists but is refused (invalid, wrong owner): every change stops. */
  error: HostError | null;
  /** The host applies the policy once at start-up; null until that has finished. */
  lastApply: { at: string; result: PolicyApplyData | null; error: HostError | null } | null;
}

export interface InstalledVersionView {
  version: string;
  installedAt: string;
  source: InstallSourceData;
  /** The grants this version had; rollback restores them (minus what the user revoked since). */
  grants: string[];
  active: boolean;
}

/** `installs.detail`: the Installed page of one capability. */
export interface InstalledDetail extends InstalledSummary {
  directory: string;
  permissions: PermissionView[];
  /** Active version first, then earlier kept versions, newest first. */
  versions: InstalledVersionView[];
  /**
   * What `installs.rollback` would do, or null when there is nothing to roll back to. It swaps to the
   * last kept version: `back` to an older one, or `forward` to the newer one rolled back from (an
   * update again). `permissions` are those of `to` with `granted` as they will be; `removed` are the
   * active version's grants that `to` does not keep, as sentences.
   */
  rollback: {
    to: string;
    direction: 'back' | 'forward';
    grants: string[];
    grantsAdded: string[];
    grantsRemoved: string[];
    permissions: PermissionView[];
    removed: PermissionView[];
  } | null;
  /** Installed capabilities that depend on this one (uninstall is refused while any remain). */
  dependents: string[];
  dependencies: Array<{ id: string; range: string; installed: string | null }>;
  package: PackageContentsView | null;
  /** The storage:data folders of its tools that have one: bytes held and the quota (SECURITY.md "Tool data quota"). */
  toolData: ToolDataView[];
}

export interface ToolDataView {
  tool: string;
  bytes: number;
  quota: number;
}

export interface GrantsData {
  granted: string[];
  declared: PermissionData[];
  /** Every declared permission for display, with `granted` set. */
  permissions: PermissionView[];
}

// ------------------------------------------------------------------ updates

export interface PermissionChange {
  /** New permissions the update asks for (need the user's yes). */
  added: PermissionView[];
  /** Permissions of the same kind as an old one but reaching further. */
  widened: Array<PermissionView & { was: string }>;
  /** Permissions the new version no longer declares. */
  removed: PermissionView[];
}

export interface AvailableUpdate {
  id: string;
  from: string;
  to: string;
  /** Pulled in as a dependency of another update. */
  dependency: boolean;
  changes: PermissionChange;
  needsApproval: boolean;
  /** The approval digest for applying this update alone (`updates.apply([id], { approvedDigest })`). */
  digest: string;
  changelog: string | null;
  downloadSize: number;
  warnings: string[];
}

export interface UpdatesCheck {
  checkedAt: string;
  updates: AvailableUpdate[];
  /** Digest for `updates.apply(null, { approvedDigest })` (all at once); null when nothing to do. */
  allDigest: string | null;
  allNeedsApproval: boolean;
  /** Remotes that could not be refreshed (the check used their last verified catalogue). */
  unreachable: Array<{ remote: string; message: string }>;
}

// ------------------------------------------------------------------ remotes, doctor, audit, cache, sandbox

export interface RemoteConfigData {
  name: string;
  url: string;
  rootKeys: string[];
  minSequence?: number;
  maxCatalogAgeMs?: number | null;
}

export interface RemoteStatus {
  name: string;
  url: string;
  /** Key ids of the pinned root keys. */
  rootKeyIds: string[];
  /** The pinned root keys as the user gave them (base64 Ed25519 public keys), to compare with what they pasted. */
  rootKeys: string[];
  /** Shipped with the app (cannot be removed, only overridden). */
  builtIn: boolean;
  /**
   * From the last attempt to read it: `verified` (it verified, and the stored catalogue is in use),
   * `failed` (the last attempt failed: `error` says why, and the catalogue in use is the one verified
   * at `lastVerifiedAt`, if any), `refused` (the stored catalogue can no longer be used), `unread`
   * (never tried yet: it is read on first use; not an error).
   */
  state: 'verified' | 'failed' | 'refused' | 'unread';
  /** When it was last tried, successfully or not (ISO time), null when never. */
  lastAttemptAt: string | null;
  /** When the catalogue was last fetched and verified (ISO time), null when never. */
  lastVerifiedAt: string | null;
  sequence: number | null;
  generatedAt: string | null;
  capabilities: number | null;
  /** Why the last attempt failed, or why the stored catalogue cannot be used (worded for the UI). */
  error: HostError | null;
}

export type ProblemSeverity = 'error' | 'warning' | 'info';

export interface ProblemData {
  kind: string;
  id?: string;
  version?: string;
  message: string;
  fixable: boolean;
  /** What a repair does, said before it is done ("Reinstall tools/x.py from the signed package of …"). */
  repair?: string;
  fixed?: string;
  /** Grouping for the Health screen (from the kind). */
  severity: ProblemSeverity;
}

export interface DoctorReportData {
  problems: ProblemData[];
  ok: boolean;
  checked: { packages: number; versions: number; cacheEntries: number };
  /** True when this was a dry run of a fix: nothing changed. */
  dryRun: boolean;
  fixed: boolean;
}

export interface AuditEntry {
  seq: number;
  time: string;
  /** The audit event kind (run, install, ...). */
  event: string;
  capability?: string;
  version?: string;
  tool?: string;
  workflow?: string;
  outcome?: string;
  durationMs?: number;
  /** Every other field of the line, as recorded. */
  data: Record<string, unknown>;
}

export interface AuditVerification {
  ok: boolean;
  lines: number;
  /** The first broken line and why, when not ok. */
  problem: string | null;
}

export interface CacheInfo {
  bytes: number;
  entries: number;
  directory: string;
}

export interface CacheGcData {
  removed: number;
  freedBytes: number;
  kept: number;
}

export interface SandboxPlatformStatus {
  platform: 'linux' | 'darwin' | 'win32';
  mechanism: string;
  /** This computer's platform. */
  current: boolean;
  available: boolean | null;
  detail: string;
}

export interface SandboxStatus {
  platform: string;
  /** The sandbox tools will run in here, or null when none is available. */
  active: string | null;
  reason: string | null;
  platforms: SandboxPlatformStatus[];
}

export interface HostInfoData {
  appVersion: string;
  sdkVersion: string;
  home: string;
  platform: string;
  /** Limits the host enforces on what the page sends. */
  limits: { maxSideloadBytes: number; sideloadChunkBytes: number };
}

// ------------------------------------------------------------------ workspaces, sideload, runs

/** A folder the user chose for runs; `handle` is what run options carry. */
export interface WorkspaceHandle {
  handle: string;
  path: string;
  name: string;
}

export interface SideloadUpload {
  upload: string;
  /** Largest file accepted, in bytes. */
  maxBytes: number;
  /** Largest chunk accepted per `sideload.chunk`, in bytes before base64. */
  chunkBytes: number;
}

export interface SideloadFile {
  /** Pass as `{ sideload: file }` to installs.plan / installs.install. */
  file: string;
  name: string;
  size: number;
  sha256: string;
}

/**
 * A sideloaded MCP Bundle (`.mcpb`) as `sideload.inspectBundle` reads it, without starting its
 * server (docs/spec/mcp-runtime.md "MCP Bundles"). Every text is the bundle's own: shown as text.
 */
export interface McpBundleData {
  /** The file name the user picked. */
  file: string;
  name: string;
  title: string;
  version: string;
  summary: string;
  author: string;
  /** The capability id the import gives it. */
  suggestedId: string;
  server: { type: 'node' | 'python' | 'binary'; entry: string };
  /** The tools the bundle declares (none and `toolsGenerated`: the server is asked at import). */
  tools: Array<{ name: string; description?: string }>;
  toolsGenerated: boolean;
  /** Values the user gives at install, each kept as a secret for this server only (`sensitive`: never shown again). */
  inputs: Array<{
    variable: string;
    title: string;
    description: string;
    sensitive: boolean;
    required: boolean;
    type: 'string' | 'number' | 'boolean';
    defaultValue?: string;
  }>;
  /** Folder or file settings: they become the folder chosen for each run (a workspace grant). */
  folders: Array<{ title: string; description: string }>;
  /** False when this host keeps no values at install (the app then asks the first time a tool needs one). */
  valuesKept: boolean;
}

/** The user's choices for `sideload.importBundle`. */
export interface McpBundleImportChoices {
  /** Hosts the server may connect to; none and not `noNet`: any server on the internet (High risk). */
  allowNet?: string[];
  /** The server needs no network. */
  noNet?: boolean;
  /** Values by variable (McpBundleData.inputs); stored as secrets once the install succeeds. */
  values?: Record<string, string>;
}

/** An imported MCP Bundle: plan and install it with `{ bundle }`. */
export interface McpBundleImportData {
  bundle: string;
  id: string;
  version: string;
  tools: Array<{ name: string; description: string }>;
  /** Tools its server lists that the bundle does not declare: left out, never exposed. */
  undeclared: string[];
  /** True when this import made the user's own publisher key. */
  keyCreated: boolean;
}

export interface ToolRunResultData {
  capability: string;
  version: string;
  tool: string;
  output: Record<string, unknown>;
  stderr: string;
  durationMs: number;
  sandbox: string;
  grantsUsed: string[];
}

/** One step of a workflow run: a tool step's output, or the answer handed back for an agent step. */
export type WorkflowStepResultData =
  | { kind: 'tool'; id: string; capability: string; tool: string; output: Record<string, unknown> }
  | { kind: 'agent'; id: string; output: unknown };

export type WorkflowRunResultData =
  | { status: 'done'; workflow: string; inputs: Record<string, unknown>; output: Record<string, unknown>; steps: WorkflowStepResultData[] }
  | {
      status: 'agent';
      workflow: string;
      inputs: Record<string, unknown>;
      stepId: string;
      instruction: string;
      /** What the agent's answer must match (a JSON Schema), when the workflow says. */
      outputSchema?: Record<string, unknown>;
      steps: WorkflowStepResultData[];
      /** For run.resumeWorkflow with the agent's answer (single use). */
      resumeToken: string;
    };

// ------------------------------------------------------------------ agents

/** The agents of the SDK's table (sdk/src/store/agent-links/agents.ts AGENT_IDS). */
export type AgentIdData =
  | 'claude-code'
  | 'codex'
  | 'copilot'
  | 'cursor'
  | 'gemini'
  | 'opencode'
  | 'goose'
  | 'windsurf'
  | 'amp'
  | 'cline'
  | 'roo-code'
  | 'kiro'
  | 'qwen-code'
  | 'droid'
  | 'augment';

export interface LinkStatusData {
  id: string;
  skill: string;
  /** The folder name in the agent's skills folder. */
  as: string;
  agent: AgentIdData;
  scope: 'user' | 'project';
  project?: string;
  path: string;
  mode: 'symlink' | 'copy';
  version: string;
  linkedAt: string;
  /** ok; stale; dangling; missing; replaced; suspended (the capability is disabled). */
  state: 'ok' | 'stale' | 'dangling' | 'missing' | 'replaced' | 'suspended';
}

export interface AgentStatusData {
  id: AgentIdData;
  name: string;
  /** The agent is installed: its program on PATH or its own configuration file (docs/skills.md "Agents"). */
  present: boolean;
  /** What showed it present. */
  evidence?: string;
  skillDirs: string[];
  linkDir: string;
  projectDirs: string[];
  docs: string;
  links: LinkStatusData[];
}

export interface LinkResultData {
  id: string;
  agent: AgentIdData;
  dir: string;
  linked: Array<{ skill: string; path: string; mode: 'symlink' | 'copy' }>;
}

export interface UnlinkResultData {
  id: string;
  removed: string[];
  kept: string[];
}

/** A command line to run, or an entry to add to an agent's config file, for the MCP Copy button. */
export type McpRegistrationData =
  | { agent: AgentIdData; kind: 'command'; argv: string[]; line: string }
  | { agent: AgentIdData; kind: 'config'; file: string; json: Record<string, unknown>; line: string };

// ------------------------------------------------------------------ operations and events

export type OperationState = 'running' | 'done' | 'failed' | 'cancelled';

/**
 * What a long method returns at once. `__value` is never set: it carries the type of the final
 * value for `client.operations.wait(op)`.
 */
export interface Operation<T = unknown> {
  operation: string;
  readonly __value?: T;
}

/**
 * The phases of a long operation: the SDK's (`ProgressPhase`: download, hash, read, verify, extract,
 * write, switch, resource, run; conformance.ts keeps them equal) and the host service's own steps
 * (`check` doctor, `policy` policy.apply, `gc` cache.gc, `refresh` remotes.refresh).
 */
export type ProgressPhase =
  'download' | 'hash' | 'read' | 'verify' | 'extract' | 'write' | 'switch' | 'resource' | 'run' | 'check' | 'policy' | 'gc' | 'refresh';

export interface ProgressData {
  phase: ProgressPhase;
  /** Bytes or items done within the phase. */
  done: number;
  /** Bytes or items the phase will do, when known. */
  total?: number;
  /** What the phase is working on (a remote's name while refreshing). */
  item?: string;
  /** Workflow runs: the step running. */
  step?: string;
  /** Tool and workflow runs: the tool running. */
  tool?: string;
}

/**
 * One operation in the operations tray (`operations.list`). A listing for the tray, so `method` and
 * `result` are not narrowed by method here; `operations.wait` and the `operation` event carry the
 * Result typed by the method that started it.
 */
export interface OperationInfo {
  operation: string;
  /** The operation method that started it (`installs.install`, `run.tool`, ...). */
  method: string;
  /** A short label for the operations tray ("Install acme/pdf"). */
  label: string;
  state: OperationState;
  startedAt: string;
  finishedAt: string | null;
  /** Whether `operations.cancel` can stop it part-way. */
  cancellable: boolean;
  /** The last progress reported, null before the first. */
  progress: ProgressData | null;
  /** Set when finished: what `operations.wait` resolves with. */
  result: Result<unknown> | null;
}
