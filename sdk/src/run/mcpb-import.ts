/**
 * MCP Bundle import (docs/spec/mcp-runtime.md "MCP Bundles"): reads a `.mcpb` (or its folder) as
 * hostile input, asks its server for its tools when the bundle does not say them (the server runs
 * once in the sandbox, with no network and an empty folder as its workspace), and writes a
 * capability whose tools are `mcp` tools of that server (format/mcpb/bundle-manifest.ts), signed
 * when keys are given.
 */
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ownPublisherKey } from '../add/own-key.js';
import { AdcapError } from '../errors.js';
import { checkEntryPath } from '../format/archive/entry-path.js';
import type { ArchiveLimits } from '../format/archive/limits.js';
import type { JsonSchemaObject, ManifestSource, Tool } from '../format/manifest-types.js';
import {
  capabilityOf,
  cleanText,
  importIdOf,
  parseMcpbManifest,
  serverPlan,
  type ImportInput,
  type McpbManifest,
} from '../format/mcpb/bundle-manifest.js';
import { readZipEntries, type ZipFileEntry } from '../format/mcpb/zip-reader.js';
import { buildPackage } from '../format/package-build.js';
import { parseStrictJson } from '../format/strict-json.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { defaultSandbox } from '../sandbox/select.js';
import type { AddedOrigin } from '../store/state.js';
import type { KeyFile, TrustedKey } from '../trust/keys.js';
import { buildSignedPackage } from '../trust/package-signature.js';
import { removeTree } from '../util/fs-tree.js';
import { hostPlatform } from '../util/platform.js';
import { cleanupWrapped, wrapChecked } from './host-sandbox.js';
import { listMcpServerTools, toolSchemaOf } from './mcp-runtime.js';
import { serverLaunchParts } from './mcp-server-launch.js';
import { resolveLaunch, type Interpreters } from './runtimes.js';

export interface ImportMcpBundleOptions {
  /** Where the .adcap is written (atomically). */
  out: string;
  /** `publisher/name`; default: from the bundle's author and name. */
  id?: string;
  /** Hosts the server may connect to; none and not `noNet`: net:connect with no scope. */
  allowNet?: string[];
  noNet?: boolean;
  /** Signs the package. */
  keys?: readonly KeyFile[];
  limits?: Partial<ArchiveLimits>;
  /** The sandbox the server is asked for its tools in (default: the platform's). */
  sandbox?: Sandbox;
  /** How long the server has to list its tools (default 30 s). */
  timeoutMs?: number;
  interpreters?: Interpreters;
}

export interface ImportedBundle {
  out: string;
  manifest: ManifestSource;
  /** Values the user gives at install, by env:read variable (sensitive ones are secrets). */
  inputs: ImportInput[];
  /** Tools the server lists that the bundle does not declare: left out. */
  undeclared: string[];
  signedBy: string[];
}

/** The names a bundle may not use: they are the capability's own (spec §2, the builder's ignore file). */
const RESERVED = new Set(['capability.json', 'SIGNATURE.json', '.adcapignore']);

/** Imports the MCP Bundle `source` (a .mcpb file or an unpacked bundle folder) as a capability package. */
export async function importMcpBundle(source: string, options: ImportMcpBundleOptions): Promise<ImportedBundle> {
  const { entries, bundle, entry } = await readBundle(source, options.limits);
  const work = await mkdtemp(path.join(os.tmpdir(), 'adcap-mcpb-'));
  try {
    const src = path.join(work, 'src');
    for (const e of entries) {
      const target = path.join(src, ...e.path.split('/'));
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, e.data, { flag: 'wx' });
      if (e.executable || (bundle.server.type === 'binary' && e.path === entry)) await chmod(target, 0o755);
    }
    const choices = {
      ...(options.id === undefined ? {} : { id: options.id }),
      allowNet: options.allowNet ?? [],
      noNet: options.noNet === true,
    };
    const listed = await askServer(bundle, src, work, choices, options);
    const plan = capabilityOf(bundle, listed, choices, hostPlatform());
    await writeFile(path.join(src, 'capability.json'), `${JSON.stringify(plan.manifest, null, 2)}\n`);
    const keys = options.keys ?? [];
    const built =
      keys.length === 0
        ? { ...(await buildPackage(src, { out: options.out })), signedBy: [] as string[] }
        : await buildSignedPackage(src, { out: options.out, keys });
    return { out: options.out, manifest: built.manifest, inputs: plan.inputs, undeclared: plan.undeclared, signedBy: built.signedBy };
  } finally {
    await removeTree(work).catch(() => undefined);
  }
}

/** A bundle read and checked: its files (in memory, within the reader's limits), its manifest, its server entry. */
async function readBundle(
  source: string,
  limits: Partial<ArchiveLimits> | undefined,
): Promise<{ entries: ZipFileEntry[]; bundle: McpbManifest; entry: string }> {
  const info = await lstat(source).catch(() => null);
  if (info === null) throw new AdcapError('E_IO', `There is no MCP Bundle at ${source}; check the path.`, { details: { path: source } });
  const entries = info.isDirectory() ? await readFolder(source) : await readZipEntries(source, limits);
  for (const e of entries) {
    if (RESERVED.has(e.path)) {
      throw new AdcapError('E_PATH', `The MCP Bundle holds ${e.path}, a name a capability keeps for itself, so it cannot be imported.`, {
        details: { path: e.path },
      });
    }
  }
  const manifestEntry = entries.find((e) => e.path === 'manifest.json');
  if (manifestEntry === undefined) throw new AdcapError('E_MISSING', `${source} has no manifest.json, so it is not an MCP Bundle.`);
  const bundle = parseMcpbManifest(parseStrictJson(manifestEntry.data, 'The MCP Bundle manifest.json'));
  const entry = bundle.server.entryPoint.replace(/^\.\//, '');
  if (!entries.some((e) => e.path === entry)) {
    throw new AdcapError('E_MISSING', `The MCP Bundle's server entry ${JSON.stringify(entry)} is not in the bundle.`, {
      details: { path: entry },
    });
  }
  return { entries, bundle, entry };
}

/**
 * What an MCP Bundle says about itself, read without starting its server: for an import dialog
 * (docs/spec/mcp-runtime.md "MCP Bundles").
 */
export interface McpBundleSummary {
  /** The bundle's `name`. */
  name: string;
  /** `display_name`, else `name` (control and bidirectional characters removed). */
  title: string;
  version: string;
  /** The first line of `description`. */
  summary: string;
  /** `author.name`; empty when the bundle names none. */
  author: string;
  manifestVersion: string;
  /** The capability id an import gives it unless another is chosen. */
  suggestedId: string;
  server: { type: 'node' | 'python' | 'binary'; entry: string };
  /** The tools the bundle declares; empty, or `toolsGenerated`: its server is asked at import. */
  tools: Array<{ name: string; description?: string }>;
  toolsGenerated: boolean;
  /** The values the user gives at install (user_config fields other than directory and file). */
  inputs: ImportInput[];
  /** user_config directory/file fields: they become the folder chosen for each run. */
  folders: Array<{ key: string; title: string; description: string }>;
}

/** Reads an MCP Bundle (a .mcpb file or its folder) as hostile input and says what it holds; nothing is started or written. */
export async function inspectMcpBundle(source: string, options: { limits?: Partial<ArchiveLimits> } = {}): Promise<McpBundleSummary> {
  const { bundle, entry } = await readBundle(source, options.limits);
  const plan = serverPlan(bundle, { allowNet: [], noNet: true }, hostPlatform());
  return {
    name: cleanText(bundle.name, 200),
    title: cleanText(bundle.displayName ?? bundle.name, 80) || cleanText(bundle.name, 80),
    version: cleanText(bundle.version, 64),
    summary: cleanText(bundle.description.split('\n')[0] ?? '', 200),
    author: cleanText(bundle.authorName, 100),
    manifestVersion: bundle.manifestVersion,
    suggestedId: importIdOf(bundle),
    server: { type: bundle.server.type, entry },
    tools: bundle.tools.map((t) => ({
      name: cleanText(t.name, 128),
      ...(t.description === undefined ? {} : { description: cleanText(t.description, 500) }),
    })),
    toolsGenerated: bundle.toolsGenerated,
    inputs: plan.inputs,
    folders: Object.entries(bundle.userConfig)
      .filter(([, f]) => f.type === 'directory' || f.type === 'file')
      .map(([key, f]) => ({ key, title: cleanText(f.title, 100), description: cleanText(f.description, 300) })),
  };
}

/** An MCP Bundle imported as a package signed with the user's own key, and the install request that adds it. */
export interface OwnImportedBundle extends ImportedBundle {
  /** For `Arcotheon.plan()`/`install()`: the file, with the user's own key trusted for it and the origin recorded. */
  request: { file: string; added: { origin: AddedOrigin; ownKey: TrustedKey } };
  /** The user's own key file, and whether this import made it. */
  keyFile: string;
  keyCreated: boolean;
}

/**
 * `adcap add file.mcpb` and the app's "Install from file…" (docs/spec/mcp-runtime.md "MCP Bundles"):
 * imports the bundle signed with the user's own publisher key (docs/skills.md, the key `adcap add`
 * signs with, made on first use in `configDir`), and returns the install request that records it
 * as added by the user from `display` (the bundle as the user named it).
 */
export async function importMcpBundleAsOwn(
  source: string,
  options: Omit<ImportMcpBundleOptions, 'keys'> & { configDir: string; display?: string },
): Promise<OwnImportedBundle> {
  const own = await ownPublisherKey(options.configDir);
  const { configDir: _configDir, display, ...rest } = options;
  const imported = await importMcpBundle(source, { ...rest, keys: [own.key] });
  const origin: AddedOrigin = { source: display ?? source, kind: 'mcpb', keyId: own.trusted.keyId };
  return {
    ...imported,
    request: { file: imported.out, added: { origin, ownKey: own.trusted } },
    keyFile: own.file,
    keyCreated: own.created,
  };
}

/**
 * tools/list of the bundle's server, run once in the sandbox with no network (whatever the import
 * allows later), an empty folder as its workspace and the defaults of non-secret settings.
 */
async function askServer(
  bundle: McpbManifest,
  src: string,
  work: string,
  choices: { allowNet: string[]; noNet: boolean },
  options: ImportMcpBundleOptions,
): Promise<Array<{ name: string; description?: string; inputSchema: JsonSchemaObject; outputSchema?: JsonSchemaObject }>> {
  const plan = serverPlan(bundle, { ...choices, noNet: true }, hostPlatform());
  const probe: Tool = {
    name: 'import',
    description: 'Lists the tools of an MCP Bundle.',
    runtime: { type: 'mcp', server: plan.server, tool: 'list' },
    inputSchema: { type: 'object' },
  };
  const launch = await resolveLaunch(probe, src, options.interpreters === undefined ? {} : { interpreters: options.interpreters });
  const workspace = path.join(work, 'workspace');
  await mkdir(workspace);
  const defaults: Record<string, string> = {};
  for (const input of plan.inputs) {
    const value = bundle.userConfig[input.key]?.default;
    if (!input.sensitive && (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')) {
      defaults[input.variable] = String(value);
    }
  }
  const parts = serverLaunchParts(probe, { args: launch.args, env: defaults, grants: plan.grants }, { dir: src, workspace });
  const sandbox = options.sandbox ?? (await defaultSandbox(process.platform));
  const tmpDir = path.join(work, 'sandbox');
  await mkdir(tmpDir, { mode: 0o700 });
  const wrapped = await wrapChecked(sandbox, {
    command: launch.command,
    args: parts.args,
    env: parts.env,
    cwd: src,
    grants: parts.grants,
    capabilityDir: src,
    dependencyDirs: [],
    readOnlyFiles: [],
    workspace,
    toolDataDir: null,
    tmpDir,
    home: os.homedir(),
  });
  try {
    const { tools } = await listMcpServerTools(wrapped, {
      label: `the MCP Bundle ${bundle.name}`,
      timeoutMs: options.timeoutMs ?? 30_000,
      outputLimit: 16 * 1024 * 1024,
    });
    return tools.map((t) => ({
      name: t.name,
      ...(t.description === undefined ? {} : { description: t.description }),
      inputSchema: toolSchemaOf(t.inputSchema),
      ...(t.outputSchema === undefined ? {} : { outputSchema: toolSchemaOf(t.outputSchema) }),
    }));
  } finally {
    await cleanupWrapped(wrapped);
  }
}

/** An unpacked bundle: regular files only (links refused, as in a zip), paths by spec §2's rules. */
async function readFolder(root: string): Promise<ZipFileEntry[]> {
  const out: ZipFileEntry[] = [];
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const name of (await readdir(dir)).sort()) {
      const rel = prefix === '' ? name : `${prefix}/${name}`;
      const full = path.join(dir, name);
      const info = await lstat(full);
      checkEntryPath(rel);
      if (info.isDirectory()) await walk(full, rel);
      else if (info.isFile()) out.push({ path: rel, data: await readFile(full), executable: (info.mode & 0o111) !== 0 });
      else {
        throw new AdcapError('E_ENTRY_TYPE', `The MCP Bundle folder holds ${JSON.stringify(rel)}, which is not a regular file (a link?).`, {
          details: { path: rel },
        });
      }
    }
  };
  await walk(root, '');
  return out;
}
