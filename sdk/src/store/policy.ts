/**
 * Organisation policy (DESIGN §9 E_POLICY; docs/admin.md): one file an administrator puts at the
 * system location, or a host names through ARCOTHEON_POLICY, that says which registries are
 * allowed, whether sideloading and unsigned packages are, which permissions are never granted,
 * which capabilities are blocked and which every user must have.
 *
 * Three rules shape this module:
 * - A policy the user can edit is no policy: at the system location on POSIX the file and its
 *   folder must be owned by root and writable by no one else, or the policy is refused.
 * - An invalid policy is never ignored: loading throws E_POLICY, and every change stops with that
 *   error until the file is fixed (read-only work such as search and list goes on).
 * - Every refusal says that the organisation decided it, which rule, and where the policy lives.
 */
import { lstatSync, readFileSync, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { satisfies, validRange } from 'semver';
import { AdcapError, isAdcapError } from '../errors.js';
import { describeSchemaErrors, schemaValidator } from '../format/json-schema.js';
import { parseStrictJson } from '../format/strict-json.js';
import { patternMatches, patternProblem } from '../permissions/grants.js';
import { normalizeRemoteUrl } from '../registry/remotes.js';

/** A registry the organisation policy names: its name, URL and root keys. */
export interface PolicyRemote {
  /** The remote's name, as users see it. */
  name: string;
  /** The URL of the registry's v1/ folder. */
  url: string;
  /** The registry's root public keys (standard base64) the catalogue must be signed with. */
  rootKeys: string[];
}

/** The policy file, version 1 (sdk/schema/policy-1.json). */
export interface Policy {
  /** The policy format version, 1. */
  policy: 1;
  /** The organisation's name, shown in every message the policy causes. */
  organisation?: string;
  /** Whom to ask (an address or a URL), shown beside the organisation. */
  contact?: string;
  /** The only registries in force; users can neither remove them nor add others. */
  remotes?: PolicyRemote[];
  /** False: installing from a .adcap file is refused (E_POLICY). */
  sideload?: boolean;
  /** False: a package not signed by a key an allowed registry trusts is refused, even with the extra confirmation. */
  unsigned?: boolean;
  /** Permission patterns never granted (`net:connect`, `fs:read:~/`...): plans, grants and runs that need one are refused. */
  deniedPermissions?: string[];
  /** Ids, or `id@range`, that may not be installed, rolled back to or run; installed ones are disabled. */
  blocked?: string[];
  /** Capabilities (optionally `id@range`) installed, enabled and kept updated for every user, their permissions granted by the policy. */
  required?: string[];
  /** Suggested on the manager's Discover screen ("Recommended by <organisation>"); nothing is installed or granted. */
  recommended?: string[];
  /** With `automatic: true`, updates that need no new permission are applied without asking. */
  updates?: { automatic?: boolean };
}

/** The rules of an organisation policy, as error details and messages name them. */
export type PolicyRule = 'remotes' | 'sideload' | 'unsigned' | 'deniedPermissions' | 'blocked' | 'required' | 'recommended' | 'updates';

/** A policy in force and where it came from. */
export interface LoadedPolicy {
  /** The rules in force (both files merged when ARCOTHEON_POLICY adds restrictions). */
  policy: Policy;
  /** The policy file in force (the system one when both exist). */
  path: string;
  /**
   * 'system' when the administrator's file is in force (with or without `added`), 'environment'
   * when ARCOTHEON_POLICY names the only policy there is.
   */
  source: 'system' | 'environment';
  /**
   * docs/admin.md "ARCOTHEON_POLICY": the file ARCOTHEON_POLICY named while a system policy
   * exists. Its rules were merged in as the stricter of both; `ignored` lists the rules of it that
   * only the system policy may set (registries it would add, required, recommended, updates; its organisation and
   * contact are not shown).
   */
  added?: { path: string; ignored: PolicyRule[] };
}

/** The system location of the policy file on each platform. */
export function systemPolicyPath(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): string {
  if (platform === 'darwin') return '/Library/Application Support/Arcotheon/policy.json';
  if (platform === 'win32') return join(env['ProgramData'] ?? 'C:\\ProgramData', 'Arcotheon', 'policy.json');
  return '/etc/arcotheon/policy.json';
}

/** Options of `loadPolicy()`: where to look for the organisation policy. */
export interface LoadPolicyOptions {
  /** The environment ARCOTHEON_POLICY is read from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** The platform whose system location is read (default this process's). */
  platform?: NodeJS.Platform;
  /** Overrides the system location (tests of the ownership rule). */
  systemPath?: string;
}

/** The largest policy file read; a real one is a few KiB. */
const MAX_POLICY_BYTES = 1024 * 1024;

/**
 * Reads the policy in force (docs/admin.md "Where the policy lives"), the one answer for the CLI,
 * the desktop app's utility process and every host:
 * - the system location alone when ARCOTHEON_POLICY is not set;
 * - the file ARCOTHEON_POLICY names when no system policy exists;
 * - both, when both exist: the variable cannot replace the administrator's policy, it only adds
 *   restrictions (mergePolicies: the stricter of both rules).
 * Both files must pass the same ownership rule on POSIX (owned by root, writable by no one else,
 * in a folder the same holds, not a link), so a user cannot write a policy of their own. Null when
 * there is none. Throws E_POLICY for a policy that exists but cannot be trusted or read (wrong
 * owner, writable by others, a link, invalid JSON or schema).
 */
export async function loadPolicy(options: LoadPolicyOptions = {}): Promise<LoadedPolicy | null> {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const fromEnv = env['ARCOTHEON_POLICY'];
  const system = await readPolicyFile(options.systemPath ?? systemPolicyPath(platform, env), 'system', platform);
  if (fromEnv === undefined || fromEnv === '') return system;
  const named = await readPolicyFile(fromEnv, 'environment', platform);
  if (system === null || named === null) return named ?? system;
  return mergePolicies(system, named);
}

/**
 * The administrator's policy with the restrictions of the file ARCOTHEON_POLICY names (docs/admin.md
 * "ARCOTHEON_POLICY"): sideload and unsigned false when either says so; deniedPermissions and blocked
 * together; remotes only those of the system policy the other also lists (when the system policy
 * lists none, the other's list stands: fewer registries). required, recommended, updates, organisation and
 * contact are the system policy's alone; the other's are ignored and named in `added.ignored`.
 */
export function mergePolicies(system: LoadedPolicy, named: LoadedPolicy): LoadedPolicy {
  const a = system.policy;
  const b = named.policy;
  const merged: Policy = { ...a };
  const ignored: PolicyRule[] = [];
  if (a.sideload === false || b.sideload === false) merged.sideload = false;
  if (a.unsigned === false || b.unsigned === false) merged.unsigned = false;
  const union = (x: string[] | undefined, y: string[] | undefined): string[] | undefined =>
    x === undefined && y === undefined ? undefined : [...new Set([...(x ?? []), ...(y ?? [])])];
  const denied = union(a.deniedPermissions, b.deniedPermissions);
  if (denied !== undefined) merged.deniedPermissions = denied;
  const blocked = union(a.blocked, b.blocked);
  if (blocked !== undefined) merged.blocked = blocked;
  if (b.remotes !== undefined) {
    if (a.remotes === undefined) merged.remotes = b.remotes;
    else {
      const theirs = b.remotes;
      merged.remotes = a.remotes.filter((r) =>
        theirs.some((o) => sameUrl(o.url, r.url) && r.rootKeys.every((k) => o.rootKeys.includes(k))),
      );
      // A registry the system policy does not list cannot be added this way.
      if (theirs.some((o) => !a.remotes?.some((r) => sameUrl(o.url, r.url)))) ignored.push('remotes');
    }
  }
  if (b.required !== undefined) ignored.push('required');
  if (b.recommended !== undefined) ignored.push('recommended');
  if (b.updates !== undefined) ignored.push('updates');
  checkPolicy(merged, `${system.path} (with ${named.path})`);
  return { policy: merged, path: system.path, source: 'system', added: { path: named.path, ignored } };
}

/** One policy file: null when the system file does not exist; E_POLICY when it cannot be trusted or read. */
async function readPolicyFile(path: string, source: LoadedPolicy['source'], platform: NodeJS.Platform): Promise<LoadedPolicy | null> {
  let info;
  try {
    // Synchronous, as readState: the policy is looked for before every run, and is at most
    // MAX_POLICY_BYTES. The usual answer, no system policy, is not an exception (each costs a stack).
    info = lstatSync(path, { throwIfNoEntry: source !== 'system' });
    if (info === undefined) return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && source === 'system') return null;
    throw new AdcapError(
      'E_POLICY',
      `The organisation policy ${path} cannot be read (${code ?? 'error'}); ` +
        'every change is stopped until it is fixed or ARCOTHEON_POLICY is unset.',
      {
        details: { path },
        cause: error,
      },
    );
  }
  if (!info.isFile()) {
    throw policyError(path, `is not a regular file (links are refused, so the file a check saw is the file that is read)`);
  }
  // docs/admin.md: the file ARCOTHEON_POLICY names passes the same ownership rule as the system file.
  if (platform !== 'win32') await checkOwnership(path, info, source);
  if (info.size > MAX_POLICY_BYTES) throw policyError(path, `is larger than ${MAX_POLICY_BYTES} bytes`);
  const bytes = readFileSync(path);
  let value: unknown;
  try {
    value = parseStrictJson(bytes, `The organisation policy ${path}`);
  } catch (error) {
    throw new AdcapError(
      'E_POLICY',
      `The organisation policy ${path} is not valid JSON: ` +
        `${isAdcapError(error) ? error.message : String(error)} ` +
        'Every change is stopped until it is fixed.',
      {
        details: { path },
        cause: error,
      },
    );
  }
  return { policy: checkPolicy(value, path), path, source };
}

/** Validates a parsed policy against sdk/schema/policy-1.json and its ranges; E_POLICY when wrong. */
export function checkPolicy(value: unknown, path: string): Policy {
  const validate = schemaValidator('policy-1.json');
  if (!validate(value)) {
    const problems = describeSchemaErrors(validate.errors ?? []).slice(0, 3);
    throw policyError(path, `does not match the policy schema: ${problems.map((p) => p.text).join('; ')}`, { problems });
  }
  const policy = value as Policy;
  for (const rule of ['blocked', 'required', 'recommended'] as const) {
    for (const entry of policy[rule] ?? []) {
      const { range } = splitSpec(entry);
      if (range !== undefined && validRange(range) === null)
        throw policyError(path, `has ${rule} entry ${JSON.stringify(entry)} whose version range is not valid semver`);
    }
  }
  for (const pattern of policy.deniedPermissions ?? []) {
    if (patternProblem(pattern) !== undefined)
      throw policyError(path, `has deniedPermissions entry ${JSON.stringify(pattern)}: ${patternProblem(pattern) as string}`);
  }
  for (const [rule, verb] of [
    ['required', 'requires'],
    ['recommended', 'recommends'],
  ] as const) {
    for (const entry of policy[rule] ?? []) {
      const { id } = splitSpec(entry);
      if ((policy.blocked ?? []).some((b) => splitSpec(b).id === id && splitSpec(b).range === undefined)) {
        throw policyError(path, `both ${verb} and blocks ${id}`);
      }
    }
  }
  return policy;
}

async function checkOwnership(path: string, info: Stats, source: LoadedPolicy['source']): Promise<void> {
  // A policy the user can edit is no policy: root must own the file and its folder, and no one
  // else may write either of them.
  const named = source === 'environment' ? ' (named by ARCOTHEON_POLICY, which needs a file only root can change; or unset it)' : '';
  if (Number(info.uid) !== 0) throw policyError(path, `is not owned by root${named}`);
  if ((Number(info.mode) & 0o022) !== 0) throw policyError(path, `is writable by users other than root${named}`);
  const folder = await stat(dirname(path));
  if (Number(folder.uid) !== 0 || (Number(folder.mode) & 0o022) !== 0)
    throw policyError(path, `is in ${dirname(path)}, a folder that users other than root can change${named}`);
}

function policyError(path: string, problem: string, details: Record<string, unknown> = {}): AdcapError {
  return new AdcapError(
    'E_POLICY',
    `The organisation policy ${path} ${problem}; it is refused, and every change is stopped until an administrator fixes it.`,
    {
      details: { path, ...details },
    },
  );
}

/** Splits `pub/name@range` into its id and range. */
export function splitSpec(spec: string): { id: string; range?: string } {
  const at = spec.indexOf('@');
  return at < 0 ? { id: spec } : { id: spec.slice(0, at), range: spec.slice(at + 1) };
}

/**
 * Whether the deniedPermissions pattern forbids the grant: they overlap. An id alone denies every
 * scope of it; `fs:read:~/` and `fs:read:/` deny every path under the home / every absolute path;
 * otherwise a pattern denies a grant when either covers the other (`net:connect:*.corp.example`
 * denies `net:connect:api.corp.example`, and `net:connect` with no scope, "any server", is denied
 * by every net:connect pattern). The matching is the permission table's (permissions/grants.ts).
 */
export function patternDenies(pattern: string, grant: string): boolean {
  return patternMatches(pattern, grant);
}

/** The sentence every policy refusal starts with. */
export function managedBy(loaded: LoadedPolicy, rule: PolicyRule): string {
  const who = loaded.policy.organisation ?? 'your organisation';
  const contact = loaded.policy.contact === undefined ? '' : ` Ask ${loaded.policy.contact} if you need it.`;
  const where = loaded.added === undefined ? loaded.path : `${loaded.path}, with the restrictions of ${loaded.added.path}`;
  return `Managed by ${who} (rule "${rule}" in ${where}).${contact}`;
}

function refuse(loaded: LoadedPolicy, rule: PolicyRule, what: string, details: Record<string, unknown> = {}): AdcapError {
  return new AdcapError('E_POLICY', `${what} ${managedBy(loaded, rule)}`, { details: { rule, path: loaded.path, ...details } });
}

/** The first deniedPermissions pattern that forbids `grant`, or undefined. */
export function deniedBy(policy: Policy | undefined, grant: string): string | undefined {
  return (policy?.deniedPermissions ?? []).find((pattern) => patternDenies(pattern, grant));
}

/** Throws E_POLICY naming the rule when any grant of a plan is denied. */
export function assertGrantsAllowed(loaded: LoadedPolicy | null, grants: ReadonlyArray<{ id: string; grant: string }>): void {
  if (loaded === null) return;
  for (const { id, grant } of grants) {
    const pattern = deniedBy(loaded.policy, grant);
    if (pattern !== undefined) {
      throw refuse(loaded, 'deniedPermissions', `${id} needs the permission ${grant}, which your organisation never grants (${pattern}).`, {
        id,
        grant,
        pattern,
      });
    }
  }
}

/** The blocked entry that matches `id@version`, or undefined. */
export function blockedBy(policy: Policy | undefined, id: string, version?: string): string | undefined {
  return (policy?.blocked ?? []).find((entry) => {
    const spec = splitSpec(entry);
    if (spec.id !== id) return false;
    return spec.range === undefined || version === undefined || satisfies(version, spec.range, { includePrerelease: true });
  });
}

export function assertNotBlocked(loaded: LoadedPolicy | null, id: string, version: string): void {
  if (loaded === null) return;
  const entry = blockedBy(loaded.policy, id, version);
  if (entry !== undefined)
    throw refuse(loaded, 'blocked', `${id}@${version} may not be installed (blocked: ${entry}).`, { id, version, entry });
}

/** Sideloading (installing from a file) is refused when the policy says sideload: false. */
export function assertSideloadAllowed(loaded: LoadedPolicy | null, file: string): void {
  if (loaded !== null && loaded.policy.sideload === false) {
    throw refuse(loaded, 'sideload', `Installing from a file (${file}) is not allowed; install from an allowed registry instead.`);
  }
}

/** Packages not signed by a key an allowed registry trusts are refused when unsigned: false. */
export function assertSignedAllowed(loaded: LoadedPolicy | null, id: string, trustedSigner: boolean): void {
  if (loaded !== null && loaded.policy.unsigned === false && !trustedSigner) {
    throw refuse(loaded, 'unsigned', `${id} is not signed by a key an allowed registry trusts, and unsigned packages are not allowed.`, {
      id,
    });
  }
}

/** Adding a remote is allowed only when the policy lists it (same name, URL and at least one key). */
export function assertRemoteAllowed(loaded: LoadedPolicy | null, remote: { name: string; url: string; rootKeys: readonly string[] }): void {
  if (loaded === null || loaded.policy.remotes === undefined) return;
  const allowed = loaded.policy.remotes.find((r) => sameUrl(r.url, remote.url) && remote.rootKeys.every((k) => r.rootKeys.includes(k)));
  if (allowed === undefined) {
    throw refuse(
      loaded,
      'remotes',
      `The registry ${remote.url} is not one your organisation allows; ` +
        `the allowed ones are ${loaded.policy.remotes.map((r) => r.name).join(', ') || 'none'}.`,
      { url: remote.url },
    );
  }
}

/** URLs compared as remotes are stored (normalised: a trailing slash, no catalog.json). */
function sameUrl(a: string, b: string): boolean {
  const normal = (url: string): string => {
    try {
      return normalizeRemoteUrl(url);
    } catch {
      return url;
    }
  };
  return normal(a) === normal(b);
}

/** A remote the policy added cannot be removed. */
export function assertRemoteRemovable(loaded: LoadedPolicy | null, name: string): void {
  if (loaded?.policy.remotes?.some((r) => r.name === name) === true) {
    throw refuse(loaded, 'remotes', `The registry ${name} was added by your organisation and cannot be removed.`, { name });
  }
}

/** The required entry for `id`, if the policy requires it. */
export function requiredEntry(policy: Policy | undefined, id: string): string | undefined {
  return (policy?.required ?? []).find((entry) => splitSpec(entry).id === id);
}

/** Required capabilities cannot be uninstalled or disabled. */
export function assertNotRequired(loaded: LoadedPolicy | null, id: string, action: 'uninstall' | 'disable'): void {
  if (loaded === null) return;
  const entry = requiredEntry(loaded.policy, id);
  if (entry !== undefined)
    throw refuse(
      loaded,
      'required',
      `${id} is required on this computer and cannot be ${action === 'uninstall' ? 'uninstalled' : 'disabled'}.`,
      { id, entry },
    );
}

/** The policy as lines a person reads (`adcap policy`). */
export function describePolicy(loaded: LoadedPolicy | null): string[] {
  if (loaded === null)
    return ['No organisation policy is in force.', `(Looked for ${systemPolicyPath()}; a host may name one with ARCOTHEON_POLICY.)`];
  const p = loaded.policy;
  const lines = [
    `Managed by ${p.organisation ?? 'your organisation'}: policy ${loaded.path} ` +
      `(${loaded.source === 'system' ? 'system location' : 'ARCOTHEON_POLICY'})`,
  ];
  if (loaded.added !== undefined) {
    lines.push(`  with the restrictions of ${loaded.added.path} (ARCOTHEON_POLICY; it cannot replace the system policy)`);
    if (loaded.added.ignored.length > 0)
      lines.push(`  ignored in ${loaded.added.path}, which only the system policy may set: ${loaded.added.ignored.join(', ')}`);
  }
  if (p.contact !== undefined) lines.push(`  contact: ${p.contact}`);
  lines.push(`  registries: ${p.remotes === undefined ? 'any' : p.remotes.map((r) => `${r.name} (${r.url})`).join(', ') || 'none'}`);
  lines.push(`  installing from a file: ${p.sideload === false ? 'not allowed' : 'allowed'}`);
  lines.push(`  unsigned packages: ${p.unsigned === false ? 'not allowed' : 'allowed'}`);
  lines.push(`  permissions never granted: ${(p.deniedPermissions ?? []).join(', ') || 'none'}`);
  lines.push(`  blocked: ${(p.blocked ?? []).join(', ') || 'none'}`);
  lines.push(`  required: ${(p.required ?? []).join(', ') || 'none'}`);
  lines.push(`  recommended: ${(p.recommended ?? []).join(', ') || 'none'}`);
  lines.push(`  automatic updates: ${p.updates?.automatic === true ? 'on (updates that need no new permission)' : 'off'}`);
  return lines;
}
