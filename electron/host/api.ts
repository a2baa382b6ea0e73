/**
 * The host API: every method the UI may call, described once and shared by the host service, the
 * preload bridge and the renderer (DESIGN §2; STYLE: "one typed API description … beats
 * hand-written channels that drift apart"). Methods are namespaced (`catalogue.search`), take
 * JSON-serialisable arguments and resolve to a plain `Result`, because errors lose their fields
 * across contextBridge and WebSocket boundaries.
 *
 * Approval never crosses the boundary as a callback: the UI asks for a plan, shows it, and sends
 * back the plan's digest; the SDK installs only if the plan it is about to carry out has that
 * digest (issue 4: approval bound to the plan the user saw).
 */
import type {
  AgentStatus,
  ApplyResult,
  DoctorReport,
  ErrorCode,
  InstalledCapability,
  InstallRequest,
  LinkResult,
  McpRegistration,
  PackageDocument,
  PackageSpec,
  Permission,
  Plan,
  RemoteConfig,
  SearchFilters,
  SearchHit,
  ToolRunResult,
  UnlinkResult,
  UpdateResult,
  WorkflowRunResult,
} from '@arcotheon/sdk';

export type Result<T> = { ok: true; value: T } | { ok: false; error: { code: ErrorCode; message: string } };

export type SearchQuery = Omit<SearchFilters, 'installedIds'>;
export type InstallTarget = InstallRequest | PackageSpec | PackageSpec[];

export interface HostApi {
  catalogue: {
    search(query: string, filters?: SearchQuery): Promise<Result<Array<SearchHit & { remote: string }>>>;
    show(id: string): Promise<Result<PackageDocument & { remote: string }>>;
  };
  remotes: {
    list(): Promise<Result<RemoteConfig[]>>;
    update(): Promise<Result<null>>;
  };
  installs: {
    list(): Promise<Result<InstalledCapability[]>>;
    plan(request: InstallTarget): Promise<Result<Plan>>;
    install(request: InstallTarget, approval: { approvedDigest: string; allowUnsigned?: boolean }): Promise<Result<ApplyResult>>;
    /** Without `approvedDigest`, applies only an update that needs no new permission. */
    update(ids: string[] | null, approval?: { approvedDigest: string }): Promise<Result<UpdateResult>>;
    rollback(id: string): Promise<Result<{ id: string; from: string; to: string }>>;
    uninstall(id: string): Promise<Result<{ removed: string[] }>>;
    grants(id: string): Promise<Result<{ granted: string[]; declared: Permission[] }>>;
    revokeGrant(id: string, grant: string): Promise<Result<string[]>>;
    grant(id: string, grant: string): Promise<Result<string[]>>;
    doctor(options?: { fix?: boolean; dryRun?: boolean }): Promise<Result<DoctorReport>>;
  };
  /** issue 13: the capability page's "Use with…" control and the MCP Copy button. */
  agents: {
    /** The agents, whether each is present under the user's home, and what is linked where. */
    list(): Promise<Result<AgentStatus[]>>;
    /** Links the skills of `id` into `agent`'s personal folder (E_CONFLICT names the choices). */
    link(id: string, agent: string, options?: { as?: Record<string, string>; skip?: string[]; project?: string }): Promise<Result<LinkResult>>;
    unlink(id: string, agent?: string): Promise<Result<UnlinkResult>>;
    /** Per agent, the command line (or config entry) that registers the granted tools of `ids` over MCP. */
    mcp(ids: string[]): Promise<Result<McpRegistration[]>>;
  };
  run: {
    tool(id: string, tool: string, input: unknown, options?: { workspace?: string | null }): Promise<Result<ToolRunResult>>;
    workflow(id: string, workflowId: string, inputs: unknown, options?: { workspace?: string | null }): Promise<Result<WorkflowRunResult>>;
  };
}

/** Events the host pushes to the UI. */
export type HostEvent =
  | { type: 'progress'; operation: number; method: HostMethod; phase: string; done: number; total?: number; item?: string }
  | { type: 'installed-changed' };

/** Every callable method, `namespace.name`: the allow-list the transports check before dispatching. */
export const HOST_METHODS = [
  'catalogue.search',
  'catalogue.show',
  'remotes.list',
  'remotes.update',
  'installs.list',
  'installs.plan',
  'installs.install',
  'installs.update',
  'installs.rollback',
  'installs.uninstall',
  'installs.grants',
  'installs.revokeGrant',
  'installs.grant',
  'installs.doctor',
  'agents.list',
  'agents.link',
  'agents.unlink',
  'agents.mcp',
  'run.tool',
  'run.workflow',
] as const;

export type HostMethod = (typeof HOST_METHODS)[number];

/** Every method `HostApi` declares, as `namespace.name`. */
type ApiMethod = { [N in keyof HostApi]: `${N}.${Extract<keyof HostApi[N], string>}` }[keyof HostApi];
// Compile-time check: HOST_METHODS lists exactly the methods of HostApi, so a name that passes
// isHostMethod always has an implementation.
const _hostMethodsComplete: [ApiMethod] extends [HostMethod] ? ([HostMethod] extends [ApiMethod] ? true : never) : never = true;

export function isHostMethod(value: unknown): value is HostMethod {
  return typeof value === 'string' && (HOST_METHODS as readonly string[]).includes(value);
}
