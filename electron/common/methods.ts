/**
 * THE HOST API CONTRACT (DESIGN §2): one table, `METHODS`, lists every method the UI may call.
 * From it come
 *   - the method list (`HOST_METHODS`, the allow-list every transport checks),
 *   - the argument validators (`checkArguments`, run host side before anything else; a refusal is
 *     E_USAGE naming the argument),
 *   - the typed client `createHostClient(call)` (client.ts): `client.catalogue.index({ limit: 1000 })`.
 *
 * Rules of the contract:
 *   - Methods are `namespace.name`, take positional JSON arguments and resolve to a `Result`
 *     ({ ok: true, value } | { ok: false, error: { code, message, details? } }); they never throw
 *     across the boundary.
 *   - `kind: 'operation'` methods are long: they return `{ operation }` at once, then the host
 *     pushes `progress` events and one final `operation` event carrying the Result;
 *     `operations.wait(id)` resolves with that Result itself, `operations.cancel(id)` stops it.
 *   - Approval is the plan's digest: the UI asks for a plan, shows it, and sends its `digest` back;
 *     the host installs only a plan with that digest. Nothing is approved by a callback.
 *   - The page never names files on this computer: workspaces are handles from
 *     `workspaces.confirm(path)` (the user typed and confirmed the folder; the host checks it),
 *     sideloads are bytes sent through `sideload.begin/chunk/commit` (capped) and then a handle.
 *   - Everything here is types and plain data: no Node, no SDK runtime; the renderer imports it.
 *   - One method per job: a second spelling of what a method already does is not added.
 *   - A method's arguments and value, and the events of an operation (types.ts `HostEvent`), are
 *     typed from this table; the host, the transports and the renderer share these types.
 */
import {
  args,
  array,
  boolean,
  json,
  literal,
  nullable,
  number,
  object,
  optional,
  record,
  string,
  union,
  type ArgsSchema,
  type Schema,
} from './schema.js';
import type {
  EnablementResultData,
  AgentStatusData,
  ApplyResultData,
  AuditEntry,
  AuditVerification,
  CacheGcData,
  CacheInfo,
  CapabilityDetail,
  CatalogueIndexPage,
  CatalogueKnownData,
  CardRiskData,
  DoctorReportData,
  GrantsData,
  HostInfoData,
  InstalledDetail,
  InstalledSummary,
  LinkResultData,
  McpBundleData,
  McpBundleImportData,
  McpRegistrationData,
  OperationInfo,
  PackageDocumentData,
  PlanData,
  PolicyApplyData,
  PolicyStatusData,
  RemoteConfigData,
  RemoteStatus,
  Result,
  SandboxStatus,
  SideloadFile,
  SideloadUpload,
  ToolRunResultData,
  UnlinkResultData,
  UpdateResultData,
  UpdatesCheck,
  WorkflowRunResultData,
  WorkspaceHandle,
} from './types.js';

// ------------------------------------------------------------------ argument schemas

// DESIGN §3, the SDK's util/capability-id.ts grammar (electron/common imports nothing from the SDK,
// so it is spelled here; test/electron/common/capability-id-parity.test.ts keeps the two equal).
const namePart = '[a-z0-9]+(?:-[a-z0-9]+)*';
export const capabilityId = string({
  max: 129,
  pattern: new RegExp(`^(?=[^/]{1,64}/[^/]{1,64}$)${namePart}/${namePart}$`),
  what: 'a capability id "publisher/name"',
});
const version = string({ min: 1, max: 256, pattern: /^[0-9A-Za-z.+-]+$/, what: 'a version' });
const range = string({ min: 1, max: 256, what: 'a version range' });
const grant = string({ min: 1, max: 1024, pattern: /^[a-z]+:[a-z]+(?::[^\s]+)?$/, what: 'a grant "id[:scope]"' });
const digest = string({ pattern: /^[0-9a-f]{64}$/, what: 'a plan digest (64 hexadecimal characters)' });
const remoteName = string({
  min: 1,
  max: 64,
  pattern: /^[a-z0-9][a-z0-9_-]*$/,
  what: 'a remote name (lowercase letters, digits, - and _)',
});
const handle = (prefix: string, what: string): Schema<string> => string({ pattern: new RegExp(`^${prefix}_[A-Za-z0-9_-]{16,64}$`), what });
const operationId = handle('op', 'an operation id');
const workspaceHandle = handle('ws', 'a workspace handle from workspaces.confirm');
const uploadId = handle('up', 'an upload id from sideload.begin');
const resumeToken = string({ pattern: /^wfr_[0-9a-f]{32}$/, what: 'a resume token from a workflow stopped at an agent step' });
const sideloadHandle = handle('sl', 'a sideload handle from sideload.commit');
const bundleHandle = handle('mb', 'an imported MCP Bundle handle from sideload.importBundle');
/** DESIGN §5: a host name (optionally *.domain or :port), as `adcap import --allow-net` takes it. */
const netHost = string({ min: 1, max: 253, pattern: /^(\*\.)?[A-Za-z0-9.-]+(:[0-9]{1,5})?$/, what: 'a host name' });
const bundleChoices = object({
  allowNet: optional(array(netHost, { max: 64 })),
  noNet: optional(boolean()),
  values: optional(record(string({ max: 16_384 }), { maxKeys: 64 })),
});

const packageSpec = union(
  string({ min: 1, max: 512, what: 'a capability spec "publisher/name[@range]"' }),
  object({ id: capabilityId, range: optional(range) }),
);
/** What to install (types.ts `InstallTargetData` is this schema's type): specs, or a request with handles. */
const installTarget = union(
  packageSpec,
  array(packageSpec, { min: 1, max: 200 }),
  object({
    packages: optional(array(packageSpec, { max: 200 })),
    sideload: optional(sideloadHandle),
    /** An MCP Bundle imported with `sideload.importBundle`: installed as added by you. */
    bundle: optional(bundleHandle),
    includePrerelease: optional(boolean()),
  }),
);
const approval = object({ approvedDigest: digest, allowUnsigned: optional(boolean()) });
const runOptions = object({ workspace: optional(nullable(workspaceHandle)) });
// The agents table of the SDK (sdk/src/store/agent-links/agents.ts AGENT_IDS); the contract imports nothing from the SDK.
const agentId = literal(
  'claude-code',
  'codex',
  'copilot',
  'cursor',
  'gemini',
  'opencode',
  'goose',
  'windsurf',
  'amp',
  'cline',
  'roo-code',
  'kiro',
  'qwen-code',
  'droid',
  'augment',
);
const skillFolder = string({ min: 1, max: 64, pattern: /^[a-z0-9]+(?:-[a-z0-9]+)*$/, what: 'a skill folder name' });
/** Only what a person chooses in the "Use with…" dialog; a project folder is a confirmed workspace handle, never a path. */
const linkOptions = object({
  as: optional(record(skillFolder, { maxKeys: 256 })),
  skip: optional(array(skillFolder, { max: 256 })),
  project: optional(workspaceHandle),
});
const doctorOptions = object({ fix: optional(boolean()), dryRun: optional(boolean()) });
const updateIds = nullable(array(capabilityId, { max: 10_000 }));
const rootKey = string({ min: 32, max: 128, pattern: /^[A-Za-z0-9+/]+={0,2}$/, what: 'a base64 public key' });
/** 1 MiB of bytes per chunk, as base64. */
export const SIDELOAD_CHUNK_BYTES = 1024 * 1024;
const base64Chunk = string({
  min: 1,
  max: Math.ceil(SIDELOAD_CHUNK_BYTES / 3) * 4,
  pattern: /^[A-Za-z0-9+/]+={0,2}$/,
  what: 'base64 data',
});

// ------------------------------------------------------------------ the table

/** Type carrier for a method's value (the operation's final value for `kind: 'operation'`). */
export interface Returns<T> {
  readonly __returns?: T;
}
const returns = <T>(): Returns<T> => ({});

export interface MethodSpec<A extends unknown[] = unknown[], R = unknown> {
  args: ArgsSchema<A>;
  returns: Returns<R>;
  /** 'call' resolves with the value; 'operation' resolves at once with `{ operation }`. */
  kind: 'call' | 'operation';
  /** Operations only: whether `operations.cancel` can stop it part-way. */
  cancellable?: boolean;
  /** One sentence for docs/host-api.md's method table. */
  doc: string;
}

function call<const A extends unknown[], R>(a: ArgsSchema<A>, r: Returns<R>, doc: string): MethodSpec<A, R> & { kind: 'call' } {
  return { args: a, returns: r, kind: 'call', doc };
}
function operation<const A extends unknown[], R>(
  a: ArgsSchema<A>,
  r: Returns<R>,
  doc: string,
  options: { cancellable: boolean },
): MethodSpec<A, R> & { kind: 'operation' } {
  return { args: a, returns: r, kind: 'operation', ...options, doc };
}

export const METHODS = {
  // ---- host
  'host.info': call(args([]), returns<HostInfoData>(), 'Versions, home folder, platform and the limits the host enforces.'),

  // ---- catalogue (metadata only: nothing is installed)
  'catalogue.index': call(
    args(
      [],
      [
        object({
          revision: optional(string({ max: 4096 })),
          offset: optional(number({ integer: true, min: 0 })),
          limit: optional(number({ integer: true, min: 1, max: 20_000 })),
        }),
      ],
    ),
    returns<CatalogueIndexPage>(),
    'A page of the search index of every remote (rows in browsing order: deprecated last, then by name) ' +
      'for the Discover screen, which searches it as the user types. ' +
      'A page always comes from the current revision: when it differs from the one asked for, the page starts over.',
  ),
  'catalogue.known': call(
    args([], [object({ read: optional(boolean()) })]),
    returns<CatalogueKnownData>(),
    'Installed versions and what the package documents read so far say (contents, last published); ' +
      'read: true reads more of them in the background.',
  ),
  'catalogue.risks': call(
    args([object({ ids: array(capabilityId, { max: 500 }), installed: optional(boolean()) })]),
    returns<CardRiskData>(),
    'The overall risk of each capability as its card shows it (the verdict of its page: own permissions, ' +
      "dependencies at the version an install takes, skills' programs), computed once per catalogue content " +
      "and installed versions; installed: true gives the installed versions' verdicts. " +
      'Ids with nothing to read are left out.',
  ),
  'catalogue.show': call(
    args([capabilityId]),
    returns<PackageDocumentData>(),
    'The verified package document: every version with its status.',
  ),
  'catalogue.detail': call(
    args([capabilityId], [object({ version: optional(version), download: optional(boolean()) })]),
    returns<CapabilityDetail>(),
    'Everything the capability page shows. With download (default true) the host fetches ' +
      'and verifies the archive into the cache to read tools, skills, workflows and the readme.',
  ),

  // ---- installs
  'installs.overview': call(
    args([]),
    returns<InstalledSummary[]>(),
    'Installed capabilities with their health: ok, update-available, broken, revoked.',
  ),
  'installs.detail': call(
    args([capabilityId]),
    returns<InstalledDetail>(),
    'One installed capability: versions kept for rollback, what rollback restores, grants, skill folders, dependents, tool data sizes.',
  ),
  'installs.plan': call(args([installTarget]), returns<PlanData>(), 'What installing would do, for the install dialog; changes nothing.'),
  'installs.install': operation(
    args([installTarget, approval]),
    returns<ApplyResultData>(),
    'Install exactly the plan whose digest the user approved.',
    { cancellable: true },
  ),
  'installs.rollback': call(
    args([capabilityId]),
    returns<{ id: string; from: string; to: string }>(),
    'Back to the previous kept version, with its grants minus what the user revoked since.',
  ),
  'installs.uninstall': call(
    args([capabilityId]),
    returns<{ removed: string[] }>(),
    'Remove a capability (E_DEPENDENTS names what still needs it).',
  ),
  'installs.grants': call(args([capabilityId]), returns<GrantsData>(), 'Granted and declared permissions.'),
  'installs.revokeGrant': call(args([capabilityId, grant]), returns<string[]>(), 'Withdraw a grant; returns the grants left.'),
  'installs.grant': call(
    args([capabilityId, grant]),
    returns<string[]>(),
    'Grant a permission the capability declares; returns the grants.',
  ),
  'installs.disable': call(
    args([capabilityId]),
    returns<EnablementResultData>(),
    'Switch a capability off: its files, versions and grants stay; its tools stop running.',
  ),
  'installs.enable': call(
    args([capabilityId]),
    returns<EnablementResultData>(),
    'Switch a disabled capability back on (E_POLICY when the policy blocks it).',
  ),

  // ---- updates
  'updates.check': call(
    args([]),
    returns<UpdatesCheck>(),
    'Refresh the remotes and list available updates with their permission changes; applies nothing.',
  ),
  'updates.apply': operation(
    args([updateIds], [approval]),
    returns<UpdateResultData>(),
    'Apply one, some (ids) or all (null). One that adds permissions is applied only with the approvedDigest from updates.check.',
    { cancellable: true },
  ),

  // ---- remotes
  'remotes.list': call(args([]), returns<RemoteConfigData[]>(), 'Configured remotes.'),
  'remotes.status': call(args([]), returns<RemoteStatus[]>(), 'Each remote with its keys and when its catalogue was last verified.'),
  'remotes.add': call(
    args([remoteName, string({ min: 1, max: 2048, what: 'a registry URL' }), array(rootKey, { min: 1, max: 16 })]),
    returns<RemoteConfigData>(),
    'Add a remote (https URL and pinned root key).',
  ),
  'remotes.remove': call(args([remoteName]), returns<null>(), 'Remove a remote and its stored catalogue.'),
  'remotes.refresh': operation(
    args([], [nullable(remoteName)]),
    returns<RemoteStatus[]>(),
    'Fetch and verify catalogues now (one remote, or all); ' +
      'a remote that failed carries the error in its status and keeps its last verified catalogue.',
    { cancellable: true },
  ),

  // ---- doctor
  'doctor.run': operation(
    args([], [doctorOptions]),
    returns<DoctorReportData>(),
    'Check the home; with fix, repair; with fix and dryRun, say what a fix would do.',
    { cancellable: false },
  ),

  // ---- organisation policy
  'policy.show': call(
    args([]),
    returns<PolicyStatusData>(),
    'The organisation policy in force (or why it is refused), where it came from, and what applying it at start-up did.',
  ),
  'policy.apply': operation(
    args([]),
    returns<PolicyApplyData>(),
    'Bring this home in line with the policy: blocked capabilities disabled, ' +
      'required ones installed, enabled and updated. The host runs it once at start-up.',
    { cancellable: false },
  ),

  // ---- audit
  'audit.list': call(
    args([], [object({ limit: optional(number({ integer: true, min: 1, max: 10_000 })), capability: optional(capabilityId) })]),
    returns<AuditEntry[]>(),
    'The audit log, newest first.',
  ),
  'audit.verify': call(args([]), returns<AuditVerification>(), "Check the audit log's hash chain."),

  // ---- cache
  'cache.info': call(args([]), returns<CacheInfo>(), 'Size of the content cache.'),
  'cache.gc': operation(args([]), returns<CacheGcData>(), 'Remove cached blobs nothing installed needs.', { cancellable: false }),

  // ---- sandbox
  'sandbox.status': call(args([]), returns<SandboxStatus>(), "Which sandbox runs tools here, and each platform's mechanism."),

  // ---- workspaces
  'workspaces.confirm': call(
    args([string({ min: 1, max: 4096, what: 'a folder path' })]),
    returns<WorkspaceHandle>(),
    'The user typed and confirmed a folder: absolute, existing, a directory, not inside the Arcotheon home.',
  ),
  'workspaces.list': call(args([]), returns<WorkspaceHandle[]>(), 'Folders confirmed in this session.'),
  'workspaces.forget': call(args([workspaceHandle]), returns<null>(), 'Forget a confirmed folder.'),

  // ---- sideload (browser transport: bytes over the socket, capped)
  'sideload.begin': call(
    args([object({ name: string({ min: 1, max: 255, what: 'a file name' }), size: number({ integer: true, min: 1 }) })]),
    returns<SideloadUpload>(),
    'Start sending a .adcap file the user picked.',
  ),
  'sideload.chunk': call(
    args([uploadId, number({ integer: true, min: 0 }), base64Chunk]),
    returns<{ received: number }>(),
    'Append base64 bytes at offset (chunks in order).',
  ),
  'sideload.commit': call(args([uploadId]), returns<SideloadFile>(), 'Finish the upload; returns the handle to plan and install.'),
  'sideload.abort': call(args([uploadId]), returns<null>(), 'Drop an upload.'),
  'sideload.inspectBundle': call(
    args([sideloadHandle]),
    returns<McpBundleData>(),
    'What a sideloaded MCP Bundle (.mcpb) holds: its server, tools and settings; nothing is started.',
  ),
  'sideload.importBundle': call(
    args([sideloadHandle, bundleChoices]),
    returns<McpBundleImportData>(),
    'Import a sideloaded MCP Bundle with the hosts its server may reach (or none) and the values of its settings, ' +
      "signed with the user's own key as adcap add does; plan and install the result with { bundle }.",
  ),

  // ---- run by hand
  'run.tool': operation(
    args([capabilityId, string({ min: 1, max: 128, what: 'a tool name' }), json()], [runOptions]),
    returns<ToolRunResultData>(),
    'Run a tool in its sandbox.',
    { cancellable: true },
  ),
  'run.workflow': operation(
    args([capabilityId, string({ min: 1, max: 128, what: 'a workflow id' }), json()], [runOptions]),
    returns<WorkflowRunResultData>(),
    'Run a workflow to its end or its first agent step.',
    { cancellable: true },
  ),
  'run.resumeWorkflow': operation(
    args([resumeToken, json()], [runOptions]),
    returns<WorkflowRunResultData>(),
    "Continue a workflow stopped at an agent step with the agent's answer (checked against the step's outputSchema).",
    { cancellable: true },
  ),

  // ---- agents (the capability page's "Use with…" control and the MCP Copy button)
  'agents.list': call(
    args([]),
    returns<AgentStatusData[]>(),
    'The agents that read skill folders, whether each is set up here, and every link Arcotheon made.',
  ),
  'agents.link': call(
    args([capabilityId, agentId], [linkOptions]),
    returns<LinkResultData>(),
    'Link the skills of an installed capability into an agent (its personal folder, or a confirmed project folder); ' +
      'E_CONFLICT names the choices (as, skip).',
  ),
  'agents.unlink': call(
    args([capabilityId], [nullable(agentId)]),
    returns<UnlinkResultData>(),
    'Remove the links Arcotheon made for a capability (for one agent, or all).',
  ),
  'agents.mcp': call(
    args([array(capabilityId, { min: 1, max: 64 })]),
    returns<McpRegistrationData[]>(),
    'Per agent, the command line or config entry that registers the granted tools of these capabilities as an MCP server.',
  ),

  // ---- operations
  'operations.list': call(args([]), returns<OperationInfo[]>(), 'Running and recently finished operations (the operations tray).'),
  'operations.wait': call(
    args([operationId]),
    returns<unknown>(),
    "Resolves with the operation's own final Result (the client types it by the method that started it); " +
      'E_NOT_FOUND for an id the host does not know.',
  ),
  'operations.cancel': call(
    args([operationId]),
    returns<{ cancelled: boolean }>(),
    'Stop a running operation; false when it already finished or cannot be cancelled.',
  ),
} as const satisfies Record<string, MethodSpec<unknown[], unknown>>;

export type HostMethod = keyof typeof METHODS;
type Spec<M extends HostMethod> = (typeof METHODS)[M];
export type MethodArgs<M extends HostMethod> = Spec<M>['args'] extends ArgsSchema<infer A> ? A : never;
export type MethodValue<M extends HostMethod> = Spec<M>['returns'] extends Returns<infer R> ? R : never;
export type OperationMethod = { [M in HostMethod]: Spec<M>['kind'] extends 'operation' ? M : never }[HostMethod];
/**
 * Every method's arguments and value, by name. Generic code indexes these maps (`ArgsMap[M]`), so
 * that TypeScript relates a method's arguments to its value for a generic M (TypeScript#47109).
 */
export type ArgsMap = { [M in HostMethod]: MethodArgs<M> };
export type ValueMap = { [M in HostMethod]: MethodValue<M> };

/** Every callable method, `namespace.name`. */
export const HOST_METHODS = Object.keys(METHODS) as HostMethod[];

export function isHostMethod(value: unknown): value is HostMethod {
  return typeof value === 'string' && Object.hasOwn(METHODS, value);
}

/** Whether `method` is long: it answers `{ operation }` at once and its value comes through `operations.wait`. */
export function isOperationMethod(method: HostMethod): method is OperationMethod {
  return METHODS[method].kind === 'operation';
}

/**
 * Checks a transport's arguments for `method` against the table. Null when they fit; else the
 * sentence for an E_USAGE refusal.
 */
export function checkArguments(method: HostMethod, argsValue: unknown): string | null {
  const spec = METHODS[method] as MethodSpec;
  const problem = spec.args.check(argsValue, 'args');
  return problem === null ? null : `${method}: ${problem}.`;
}

/** The value an operation method resolves to at once. */
export type Started<M extends HostMethod> = { operation: string; readonly __value?: MethodValue<M> };

/** What calling `method` resolves to over the wire. */
export type WireValue<M extends HostMethod> = M extends OperationMethod ? Started<M> : MethodValue<M>;
export type WireResult<M extends HostMethod> = Result<WireValue<M>>;

/** A capability spec: `publisher/name[@range]`, or the id and range apart. */
export type PackageSpecData = Extract<InstallTargetData, string | { id: string }>;
/**
 * What to install: capability specs, or a request. `sideload` is a handle from `sideload.commit`,
 * `bundle` one from `sideload.importBundle` (never a path: the page cannot name files on this
 * computer). Declared once, by its schema in methods.ts (`installs.plan`'s argument).
 */
export type InstallTargetData = MethodArgs<'installs.plan'>[0];
