/**
 * MCP Bundle manifests (manifest.json of a `.mcpb`, manifest_version 0.2 to 0.4) and the capability
 * manifest an import makes of one (docs/spec/mcp-runtime.md, "MCP Bundles"). Plain data in, plain
 * data out: reading the zip and asking the server are other modules' (zip-reader.ts,
 * run/mcpb-import.ts).
 *
 * - `server.type` node, python or binary becomes an `mcp` runtime; `entry_point` its entry;
 *   `mcp_config.args`/`env` its args and env, with `${__dirname}` → `${dir}`; `uv` servers (0.4)
 *   install packages at start and are refused.
 * - `user_config` fields: `directory`/`file` → the run's workspace (`${workspace}` with
 *   fs:read:workspace and fs:write:workspace), never a path baked in; every other field → an
 *   env:read variable the user gives at install (kept in the secret store; `sensitive` ones are
 *   never shown back), passed only to this server.
 * - Network: the bundle names no hosts; the importer's `allowNet` hosts become net:connect scopes,
 *   none given means net:connect with no scope ("Connect to any server on the internet"), and
 *   `noNet` none.
 */
import semver from 'semver';
import { AdcapError } from '../../errors.js';
import type { JsonSchemaObject, ManifestSource, McpServerSpec, Permission, Tool } from '../manifest-types.js';

/** The manifest versions read (the MCPB specification's 0.2, 0.3 and 0.4; `dxt_version` is their old name). */
export const MCPB_MANIFEST_VERSIONS = ['0.2', '0.3', '0.4'] as const;

export type UserConfigType = 'string' | 'number' | 'boolean' | 'directory' | 'file';

export interface UserConfigField {
  type: UserConfigType;
  title: string;
  description: string;
  required?: boolean;
  default?: unknown;
  multiple?: boolean;
  sensitive?: boolean;
}

export interface McpbManifest {
  manifestVersion: string;
  name: string;
  displayName?: string;
  version: string;
  description: string;
  longDescription?: string;
  authorName: string;
  homepage?: string;
  license?: string;
  keywords: string[];
  server: { type: 'node' | 'python' | 'binary'; entryPoint: string; args: string[]; env: Record<string, string> };
  tools: Array<{ name: string; description?: string }>;
  toolsGenerated: boolean;
  userConfig: Record<string, UserConfigField>;
  compatibility: { platforms?: string[]; runtimes?: { node?: string; python?: string } };
}

function bad(pointer: string, problem: string): AdcapError {
  return new AdcapError('E_SCHEMA', `The MCP Bundle's manifest.json: ${pointer} ${problem}.`, { details: { pointer } });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function str(o: Record<string, unknown>, key: string, pointer: string, required: true): string;
function str(o: Record<string, unknown>, key: string, pointer: string, required?: false): string | undefined;
function str(o: Record<string, unknown>, key: string, pointer: string, required = false): string | undefined {
  const v = o[key];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string') throw bad(`${pointer}/${key}`, required && v === undefined ? 'is missing' : 'must be a string');
  return v;
}

function strings(v: unknown, pointer: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw bad(pointer, 'must be an array of strings');
  return v as string[];
}

/** Parses and checks manifest.json of an MCP Bundle; unknown manifest versions are refused. */
export function parseMcpbManifest(value: unknown): McpbManifest {
  if (!isObject(value)) throw bad('/', 'must be a JSON object');
  const version = value['manifest_version'] ?? value['dxt_version'];
  if (typeof version !== 'string' || !(MCPB_MANIFEST_VERSIONS as readonly string[]).includes(version)) {
    throw new AdcapError(
      'E_SCHEMA',
      `The MCP Bundle's manifest.json has manifest_version ${JSON.stringify(version ?? null)}, ` +
        `and this importer reads ${MCPB_MANIFEST_VERSIONS.join(', ')}; ask its publisher for a bundle of one of those versions.`,
      { details: { pointer: '/manifest_version' } },
    );
  }
  const server = value['server'];
  if (!isObject(server)) throw bad('/server', 'is missing');
  const type = server['type'];
  if (type === 'uv') {
    throw new AdcapError(
      'E_RUNTIME_UNSUPPORTED',
      'The MCP Bundle runs its server with uv, which installs packages from the network at start; ' +
        'a sandboxed capability cannot, so ask its publisher for a node, python or binary bundle.',
    );
  }
  if (type !== 'node' && type !== 'python' && type !== 'binary') throw bad('/server/type', 'must be node, python or binary');
  const mcpConfig = server['mcp_config'];
  if (!isObject(mcpConfig)) throw bad('/server/mcp_config', 'is missing');
  const env = mcpConfig['env'] ?? {};
  if (!isObject(env) || !Object.values(env).every((v) => typeof v === 'string'))
    throw bad('/server/mcp_config/env', 'must map names to strings');
  const author = value['author'];
  const tools = value['tools'] ?? [];
  if (!Array.isArray(tools)) throw bad('/tools', 'must be an array');
  const userConfig = value['user_config'] ?? {};
  if (!isObject(userConfig)) throw bad('/user_config', 'must be an object');
  const fields: Record<string, UserConfigField> = {};
  for (const [key, field] of Object.entries(userConfig)) {
    const pointer = `/user_config/${key}`;
    if (!/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/.test(key)) throw bad(pointer, 'has a name that is not letters, digits, _ or -');
    if (!isObject(field)) throw bad(pointer, 'must be an object');
    const fieldType = field['type'];
    if (fieldType !== 'string' && fieldType !== 'number' && fieldType !== 'boolean' && fieldType !== 'directory' && fieldType !== 'file') {
      throw bad(`${pointer}/type`, 'must be string, number, boolean, directory or file');
    }
    fields[key] = {
      type: fieldType,
      title: str(field, 'title', pointer) ?? key,
      description: str(field, 'description', pointer) ?? '',
      ...(field['required'] === true ? { required: true } : {}),
      ...(field['sensitive'] === true ? { sensitive: true } : {}),
      ...(field['multiple'] === true ? { multiple: true } : {}),
      ...(field['default'] === undefined ? {} : { default: field['default'] }),
    };
  }
  const compatibility = isObject(value['compatibility']) ? value['compatibility'] : {};
  const runtimes = isObject(compatibility['runtimes']) ? compatibility['runtimes'] : {};
  return {
    manifestVersion: version,
    name: str(value, 'name', '', true),
    ...(typeof value['display_name'] === 'string' ? { displayName: value['display_name'] } : {}),
    version: str(value, 'version', '', true),
    description: str(value, 'description', '', true),
    ...(typeof value['long_description'] === 'string' ? { longDescription: value['long_description'] } : {}),
    authorName: isObject(author) && typeof author['name'] === 'string' ? author['name'] : '',
    ...(typeof value['homepage'] === 'string' ? { homepage: value['homepage'] } : {}),
    ...(typeof value['license'] === 'string' ? { license: value['license'] } : {}),
    keywords: strings(value['keywords'], '/keywords'),
    server: {
      type,
      entryPoint: str(server, 'entry_point', '/server', true),
      args: strings(mcpConfig['args'], '/server/mcp_config/args'),
      env: env as Record<string, string>,
    },
    tools: tools.map((t: unknown, i) => {
      if (!isObject(t) || typeof t['name'] !== 'string') throw bad(`/tools/${i}`, 'must be { name, description? }');
      return { name: t['name'], ...(typeof t['description'] === 'string' ? { description: t['description'] } : {}) };
    }),
    toolsGenerated: value['tools_generated'] === true,
    userConfig: fields,
    compatibility: {
      ...(Array.isArray(compatibility['platforms']) ? { platforms: strings(compatibility['platforms'], '/compatibility/platforms') } : {}),
      runtimes: {
        ...(typeof runtimes['node'] === 'string' ? { node: runtimes['node'] } : {}),
        ...(typeof runtimes['python'] === 'string' ? { python: runtimes['python'] } : {}),
      },
    },
  };
}

/** A user_config field as an env:read variable: the name the server's env gives it, else MCPB_<KEY>. */
function variableOf(bundle: McpbManifest, key: string): string {
  for (const [name, value] of Object.entries(bundle.server.env)) {
    if (value === `\${user_config.${key}}` && /^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(name)) return name;
  }
  return `MCPB_${key.toUpperCase().replace(/[^A-Z0-9_]/g, '_')}`;
}

/** Text a bundle controls, made fit for a manifest field: no control or bidirectional characters, at most `max` characters. */
export function cleanText(text: string, max: number, keepNewlines = false): string {
  let cleaned = '';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    const control = code < 0x20 || (code >= 0x7f && code <= 0x9f);
    const bidi =
      code === 0x061c || code === 0x200e || code === 0x200f || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
    if (bidi) continue;
    cleaned += control && !(keepNewlines && (ch === '\n' || ch === '\t')) ? ' ' : ch;
  }
  cleaned = cleaned.trim();
  return cleaned.length > max ? `${cleaned.slice(0, max - 1)}…` : cleaned;
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
}

/** An MCP tool name as a manifest tool name (`^[a-z][a-z0-9_]{0,63}$`), unique among `taken`. */
export function toolNameOf(mcpName: string, taken: Set<string>): string {
  let base = mcpName
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (!/^[a-z]/.test(base)) base = `t_${base}`;
  base = base.slice(0, 60);
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  taken.add(name);
  return name;
}

/** What `${…}` of an MCPB mcp_config becomes in an mcp runtime (docs/spec/mcp-runtime.md). */
function translate(bundle: McpbManifest, text: string, pointer: string): string {
  return text.replace(/\$\{([^{}]*)\}/g, (whole, name: string) => {
    if (name === '__dirname') return '${dir}';
    if (name === '/' || name === 'pathSeparator') return '/';
    if (name.startsWith('user_config.')) {
      const key = name.slice('user_config.'.length);
      const field = bundle.userConfig[key];
      if (field === undefined) throw bad(pointer, `refers to ${whole}, which user_config does not define`);
      return field.type === 'directory' || field.type === 'file' ? '${workspace}' : `\${env.${variableOf(bundle, key)}}`;
    }
    throw new AdcapError(
      'E_USAGE',
      `The MCP Bundle's ${pointer} says ${whole}, a folder of your computer that a sandboxed server is not given; ` +
        'use a directory field of user_config (it becomes the folder you choose for each run) and import again.',
      { details: { pointer } },
    );
  });
}

export interface ImportChoices {
  /** `publisher/name`; default: from the bundle's author and name. */
  id?: string;
  /** Hosts the server may connect to (`--allow-net`); none and not `noNet`: any server. */
  allowNet: string[];
  noNet: boolean;
}

/** One value the user gives at install (docs/spec/mcp-runtime.md "MCP Bundles"). */
export interface ImportInput {
  key: string;
  variable: string;
  title: string;
  description: string;
  sensitive: boolean;
  required: boolean;
  /** The field's type: what kind of value a form asks for. */
  type: 'string' | 'number' | 'boolean';
  /** The bundle's default, as text (never for a sensitive field). */
  defaultValue?: string;
}

export interface CapabilityPlan {
  manifest: ManifestSource;
  inputs: ImportInput[];
  /** The tools the server listed that the bundle does not declare: left out. */
  undeclared: string[];
}

/** The listed MCP tools the capability will hold: the bundle's own list when it has one, else the server's. */
export function chooseTools(
  bundle: McpbManifest,
  listed: ReadonlyArray<{ name: string; description?: string; inputSchema: JsonSchemaObject; outputSchema?: JsonSchemaObject }>,
): { tools: typeof listed; undeclared: string[] } {
  if (bundle.tools.length === 0 || bundle.toolsGenerated) return { tools: listed, undeclared: [] };
  const declared = new Set(bundle.tools.map((t) => t.name));
  for (const t of bundle.tools) {
    if (!listed.some((l) => l.name === t.name)) {
      throw new AdcapError(
        'E_TOOL',
        `The MCP Bundle declares the tool "${cleanText(t.name, 100)}", which its server does not list; ` +
          'ask its publisher for a fixed bundle.',
      );
    }
  }
  return { tools: listed.filter((l) => declared.has(l.name)), undeclared: listed.filter((l) => !declared.has(l.name)).map((l) => l.name) };
}

/** The server every tool of an imported bundle runs, with the permissions and install-time inputs it needs. */
export interface ServerPlan {
  server: McpServerSpec;
  permissions: Permission[];
  grants: string[];
  inputs: ImportInput[];
}

/** The capability manifest (without `files`) of a bundle whose server listed `listed`. */
export function capabilityOf(
  bundle: McpbManifest,
  listed: ReadonlyArray<{ name: string; description?: string; inputSchema: JsonSchemaObject; outputSchema?: JsonSchemaObject }>,
  choices: ImportChoices,
  platform: string,
): CapabilityPlan {
  const id = choices.id ?? importIdOf(bundle);
  if (!semver.valid(bundle.version)) throw bad('/version', `is ${JSON.stringify(bundle.version)}, which is not a semver version`);
  const { server, permissions, grants, inputs } = serverPlan(bundle, choices, platform);
  return assemble(bundle, listed, { id, server, permissions, grants, inputs }, platform);
}

/** The capability id an import gives a bundle unless another is chosen: `<author>/<name>`, slugged. */
export function importIdOf(bundle: McpbManifest): string {
  return `${slug(bundle.authorName) || 'mcpb'}/${slug(bundle.name) || 'server'}`;
}

/** The server of a bundle as an mcp runtime, and what it needs (docs/spec/mcp-runtime.md "MCP Bundles"). */
export function serverPlan(bundle: McpbManifest, choices: ImportChoices, platform: string): ServerPlan {
  const entry = bundle.server.entryPoint.replace(/^\.\//, '');
  const entryArgs = new Set([entry, `./${entry}`, `\${__dirname}/${entry}`]);
  const args = bundle.server.args.filter((a) => !entryArgs.has(a)).map((a, i) => translate(bundle, a, `/server/mcp_config/args/${i}`));
  const env = Object.fromEntries(
    Object.entries(bundle.server.env).map(([k, v]) => [k, translate(bundle, v, `/server/mcp_config/env/${k}`)]),
  );
  const inputs: ImportInput[] = [];
  const permissions: Permission[] = [];
  let workspace = false;
  for (const [key, field] of Object.entries(bundle.userConfig)) {
    if (field.type === 'directory' || field.type === 'file') {
      workspace = true;
      continue;
    }
    const variable = variableOf(bundle, key);
    inputs.push({
      key,
      variable,
      title: cleanText(field.title, 100),
      description: cleanText(field.description, 300),
      sensitive: field.sensitive === true,
      required: field.required === true,
      type: field.type,
      ...(field.sensitive !== true && ['string', 'number', 'boolean'].includes(typeof field.default)
        ? { defaultValue: cleanText(String(field.default as string | number | boolean), 500) }
        : {}),
    });
    // Given to the server through its own variable (never baked into the package).
    if (!(variable in env)) env[variable] = `\${env.${variable}}`;
    permissions.push({
      id: 'env:read',
      scope: variable,
      reason: cleanText(`${field.sensitive === true ? 'The secret' : 'The setting'} "${field.title}" you give at install`, 500),
    });
  }
  if (workspace) {
    permissions.push(
      {
        id: 'fs:read',
        scope: 'workspace',
        reason: 'Reads files in the folder you choose for each run (the bundle asks for a folder or file).',
      },
      {
        id: 'fs:write',
        scope: 'workspace',
        reason: 'May change files in the folder you choose for each run (the bundle asks for a folder or file).',
      },
    );
  }
  if (!choices.noNet) {
    if (choices.allowNet.length === 0) {
      permissions.push({ id: 'net:connect', reason: 'The MCP Bundle does not say which servers it connects to.' });
    } else {
      for (const host of choices.allowNet)
        permissions.push({ id: 'net:connect', scope: host, reason: 'Allowed when the MCP Bundle was imported.' });
    }
  }
  const grants = permissions.map((p) => (p.scope === undefined ? p.id : `${p.id}:${p.scope}`));
  const serverBase =
    bundle.server.type === 'binary'
      ? { type: 'binary' as const, entries: Object.fromEntries(platformsOf(bundle, platform).map((p) => [p, entry])) }
      : {
          type: bundle.server.type,
          entry,
          ...(bundle.compatibility.runtimes?.[bundle.server.type] === undefined
            ? {}
            : { version: bundle.compatibility.runtimes[bundle.server.type] as string }),
        };
  const server = { ...serverBase, ...(args.length === 0 ? {} : { args }), ...(Object.keys(env).length === 0 ? {} : { env }) };
  return { server, permissions, grants, inputs };
}

function assemble(
  bundle: McpbManifest,
  listed: ReadonlyArray<{ name: string; description?: string; inputSchema: JsonSchemaObject; outputSchema?: JsonSchemaObject }>,
  plan: ServerPlan & { id: string },
  platform: string,
): CapabilityPlan {
  const { id, server, permissions, grants, inputs } = plan;
  const taken = new Set<string>();
  const declaredDescriptions = new Map(bundle.tools.map((t) => [t.name, t.description]));
  const { tools: chosen, undeclared } = chooseTools(bundle, listed);
  const tools: Tool[] = chosen.map((t) => ({
    name: toolNameOf(t.name, taken),
    description:
      cleanText(t.description ?? declaredDescriptions.get(t.name) ?? `The ${t.name} tool of ${bundle.name}.`, 4000, true) || t.name,
    runtime: { type: 'mcp', server, tool: t.name },
    inputSchema: t.inputSchema,
    ...(t.outputSchema === undefined ? {} : { outputSchema: t.outputSchema }),
    ...(grants.length === 0 ? {} : { permissions: grants }),
  }));
  if (tools.length === 0) throw new AdcapError('E_TOOL', `The MCP Bundle's server lists no tools, so there is nothing to import.`);
  const homepage = bundle.homepage?.startsWith('https://') === true ? { homepage: bundle.homepage } : {};
  const manifest: ManifestSource = {
    adcap: '1.0',
    id,
    version: bundle.version,
    name: cleanText(bundle.displayName ?? bundle.name, 80) || id,
    summary: cleanText(bundle.description.split('\n')[0] ?? '', 200) || `The MCP server ${bundle.name}.`,
    ...(bundle.longDescription === undefined ? {} : { description: cleanText(bundle.longDescription, 8000, true) }),
    ...homepage,
    ...(bundle.keywords.length === 0
      ? {}
      : { keywords: [...new Set(bundle.keywords.map((k) => cleanText(k, 50)).filter((k) => k !== ''))].slice(0, 20) }),
    tools,
    ...(permissions.length === 0 ? {} : { permissions }),
    ...(bundle.compatibility.platforms === undefined ? {} : { compat: { platforms: platformsOf(bundle, platform) } }),
    x: { mcpb: { manifest_version: bundle.manifestVersion, name: cleanText(bundle.name, 200) } },
  };
  return { manifest, inputs, undeclared };
}

const ARCHES: Record<string, string[]> = {
  darwin: ['darwin-arm64', 'darwin-x64'],
  linux: ['linux-x64', 'linux-arm64'],
  win32: ['win32-x64', 'win32-arm64'],
};

/** MCPB platforms (darwin, linux, win32) as os-arch values; none listed: this computer's. */
function platformsOf(bundle: McpbManifest, platform: string): string[] {
  const listed = bundle.compatibility.platforms;
  if (listed === undefined) return [platform];
  return listed.flatMap((p) => ARCHES[p] ?? []);
}
