/**
 * MCP Bundles picked with "Install from file…" (docs/spec/mcp-runtime.md "MCP Bundles"): the
 * sideloaded `.mcpb` is read as hostile input and described (inspect: nothing started), then
 * imported with the user's choices (the hosts its server may reach, or none) into a package signed
 * with the user's own publisher key, exactly as `adcap add file.mcpb` does, and referred to by a
 * handle the install dialog plans and installs with. The values the user gave for the bundle's
 * settings wait here until that install succeeds, then go to the same secret store as every
 * env:read value, under the capability and the variable only its server is given. They are never
 * returned to the page, logged or put in an error.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdcapError, type InstallRequest } from '@arcotheon/sdk';
import { importMcpBundleAsOwn, inspectMcpBundle, userConfigDir, type McpBundleSummary } from '@arcotheon/sdk/internal';
import type { McpBundleData, McpBundleImportData, McpBundleImportChoices } from '../common/types.js';

/** Where the values of a bundle's settings are kept (a SecretStore's `set`). */
export interface BundleValueStore {
  set(capability: string, variable: string, value: string): Promise<void>;
}

interface Imported {
  id: string;
  request: InstallRequest & { file: string };
  values: Map<string, string>;
}

/** A value is one line (as `adcap secret set` and the desktop prompt require), at most 16 KiB. */
const MAX_VALUE = 16_384;

export class BundleImports {
  private readonly imports = new Map<string, Imported>();
  private scratch: Promise<string> | undefined;

  constructor(
    /** The settings' values are stored here after the install; null: the host keeps none (the app asks at the first run). */
    private readonly store: BundleValueStore | null,
    /** The folder of the user's own publisher key (default: the CLI's, userConfigDir()). */
    private readonly configDir: string = userConfigDir(process.platform, process.env, process.env.HOME ?? homedir()),
  ) {}

  private dir(): Promise<string> {
    this.scratch ??= mkdtemp(join(tmpdir(), 'arcotheon-mcpb-'));
    return this.scratch;
  }

  /** What the bundle in `file` (a sideloaded .mcpb) holds, for the import dialog. */
  async inspect(file: string, name: string): Promise<McpBundleData> {
    const summary = await inspectMcpBundle(file);
    return { ...view(summary), file: name, valuesKept: this.store !== null };
  }

  /** Imports the bundle with the user's choices; the handle plans and installs it (installs.plan({ bundle })). */
  async import(file: string, name: string, choices: McpBundleImportChoices): Promise<McpBundleImportData> {
    const summary = await inspectMcpBundle(file);
    const values = new Map<string, string>();
    for (const input of summary.inputs) {
      const value = choices.values?.[input.variable];
      if (value === undefined || value === '') {
        if (input.required && this.store !== null)
          throw new AdcapError('E_USAGE', `"${input.title}" is required by this MCP Bundle; fill it in, then choose Continue again.`);
        continue;
      }
      if (value.length > MAX_VALUE || /[\r\n\0]/.test(value))
        throw new AdcapError('E_USAGE', `"${input.title}" must be one line of at most ${MAX_VALUE} characters.`);
      values.set(input.variable, value);
    }
    for (const key of Object.keys(choices.values ?? {}))
      if (!summary.inputs.some((i) => i.variable === key))
        throw new AdcapError(
          'E_USAGE',
          `This MCP Bundle has no setting ${JSON.stringify(key.slice(0, 64))}; choose Install from file… again.`,
        );
    if (this.store === null) values.clear();
    const handle = `mb_${randomBytes(18).toString('base64url')}`;
    const out = join(await this.dir(), `${handle}.adcap`);
    const imported = await importMcpBundleAsOwn(file, {
      configDir: this.configDir,
      display: name,
      out,
      allowNet: choices.allowNet ?? [],
      noNet: choices.noNet === true,
    });
    this.imports.set(handle, { id: imported.manifest.id, request: imported.request, values });
    return {
      bundle: handle,
      id: imported.manifest.id,
      version: imported.manifest.version,
      tools: (imported.manifest.tools ?? []).map((t) => ({ name: t.name, description: t.description })),
      undeclared: imported.undeclared.slice(0, 100),
      keyCreated: imported.keyCreated,
    };
  }

  /** The install request of an imported bundle (the own key trusted for its file, the origin recorded). */
  request(bundle: string): InstallRequest & { file: string } {
    return this.get(bundle).request;
  }

  /** After the install of `bundle` succeeded: its settings' values go to the store, and the import is done. */
  async installed(bundle: string): Promise<void> {
    const entry = this.get(bundle);
    for (const [variable, value] of entry.values) await this.store?.set(entry.id, variable, value);
    this.imports.delete(bundle);
    await rm(entry.request.file, { force: true });
  }

  async close(): Promise<void> {
    this.imports.clear();
    if (this.scratch !== undefined) await rm(await this.scratch, { recursive: true, force: true });
  }

  private get(bundle: string): Imported {
    const entry = this.imports.get(bundle);
    if (entry === undefined)
      throw new AdcapError(
        'E_USAGE',
        'That MCP Bundle import is not known to this host (it was installed or the host restarted); choose Install from file… again.',
      );
    return entry;
  }
}

function view(s: McpBundleSummary): Omit<McpBundleData, 'file' | 'valuesKept'> {
  return {
    name: s.name,
    title: s.title,
    version: s.version,
    summary: s.summary,
    author: s.author,
    suggestedId: s.suggestedId,
    server: s.server,
    tools: s.tools,
    toolsGenerated: s.toolsGenerated || s.tools.length === 0,
    inputs: s.inputs.map((i) => ({
      variable: i.variable,
      title: i.title,
      description: i.description,
      sensitive: i.sensitive,
      required: i.required,
      type: i.type,
      ...(i.defaultValue === undefined ? {} : { defaultValue: i.defaultValue }),
    })),
    folders: s.folders.map((f) => ({ title: f.title, description: f.description })),
  };
}
