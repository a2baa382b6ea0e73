import type { Command } from 'commander';
import { AdcapError, isAdcapError } from '../../errors.js';
import { RegistryClient, type LoadedCatalogue } from '../../registry/client/registry-client.js';
import { describePermission, riskLevel } from '../../permissions/index.js';
import { formatBytes } from '../../store/plan.js';
import { surfaceMessage } from '../../surface-text.js';
import { compareVersions } from '../../registry/documents.js';
import { parseCapabilityId } from '../../registry/layout.js';
import { loadEmbeddedRemote } from '../../registry/embedded.js';
import {
  addRemote,
  checkRemoteConfig,
  getRemote,
  listRemotes,
  normalizeRemoteUrl,
  readHomeConfig,
  removeRemote,
  type RemoteConfig,
} from '../../registry/remotes.js';
import type { SearchHit } from '../../registry/search.js';
import type { Access, Tier } from '../../registry/types.js';
import type { Arcotheon } from '../../store/arcotheon.js';
import { searchRemotesCounted } from '../../store/discovery.js';
import { assertRemoteAllowed, assertRemoteRemovable, loadPolicy, managedBy, type LoadedPolicy } from '../../store/policy.js';
import { storeOf } from '../../store/store-of.js';
import type { CliContext } from '../context.js';
import { openArcotheon } from '../host.js';
import { installedView, type InstalledView } from '../installed-view.js';
import { cliListText, DEFAULT_LIST_ROWS, truncatedList, truncatedRows } from '../terminal-text.js';
import { originText } from './add.js';

/**
 * Registry client commands (DESIGN §8): `remote add|list|show|remove|update`, `search`, `show`.
 * `remote add` and `remote update` fetch and verify catalogues now; `search` and `show` use the
 * last verified catalogue and refresh it when it was checked over an hour ago.
 */
export function register(program: Command, ctx: CliContext): void {
  const { output } = ctx;
  const clientFor = (remote: RemoteConfig): RegistryClient => new RegistryClient({ home: ctx.home(), remote });
  const remote = program.command('remote').description('registries this home installs from, with their pinned root keys');

  remote
    .command('add')
    .description('add a registry by the URL of its v1/ folder and pin its root key; fetches and verifies the catalogue now')
    .argument('<name>', 'a short local name, e.g. examples')
    .argument('<url>', 'https:// (or file://, or http:// on 127.0.0.1) URL of the v1/ folder')
    .requiredOption('--root-key <base64>', "the registry's root public key (repeatable)", collect, [] as string[])
    .option('--min-sequence <n>', 'refuse catalogues older than this sequence', parseNonNegative)
    .action(async (name: string, url: string, opts: { rootKey: string[]; minSequence?: number }) => {
      const home = ctx.home();
      if ((await listRemotes(home)).some((r) => r.name === name)) {
        throw new AdcapError('E_USAGE', `A remote named "${name}" already exists; remove it first with "adcap remote remove ${name}".`);
      }
      const config: RemoteConfig = {
        name,
        url,
        rootKeys: opts.rootKey,
        ...(opts.minSequence === undefined ? {} : { minSequence: opts.minSequence }),
      };
      // Validate and normalise before touching the network, then verify before saving: a remote
      // whose catalogue does not verify under the given key is never added.
      const normalized = checkRemoteConfig(config, `The remote "${name}"`);
      // With an organisation policy that lists registries, only those may be added.
      assertRemoteAllowed(await policyOf(ctx), normalized);
      const loaded = await clientFor(normalized).update();
      await addRemote(home, normalized);
      output.result(
        remoteSummary(normalized, loaded),
        () =>
          `added remote ${name} (${normalized.url}): catalogue "${loaded.payload.registry}" sequence ` +
          `${loaded.payload.sequence}, ${loaded.capabilityCount} capabilities (layout ${loaded.layout})`,
      );
    });

  remote
    .command('list')
    .description("list remotes (a policy's registries are marked as managed by your organisation)")
    .action(async () => {
      const rows: RemoteRow[] = [];
      for (const r of await remoteRows(ctx)) {
        const stored = await clientFor(r)
          .catalogue({ refresh: 'never' })
          .catch(() => null);
        rows.push({ ...r, sequence: stored?.payload.sequence ?? null, checkedAt: stored?.checkedAt ?? null });
      }
      output.result(rows, () =>
        rows.length === 0
          ? 'no remotes; add one with: adcap remote add <name> <url> --root-key <base64>'
          : rows.map((r) => `${r.name}\t${r.url}\t${r.sequence === null ? 'not fetched' : `sequence ${r.sequence}`}${remoteMark(r)}`),
      );
    });

  remote
    .command('show')
    .description('one remote: its URL, pinned root keys, last verified catalogue, and whether your organisation manages it')
    .argument('<name>', 'remote name')
    .action(async (name: string) => {
      const found = (await remoteRows(ctx)).find((r) => r.name === name);
      if (found === undefined)
        throw new AdcapError('E_NOT_FOUND', `There is no remote named "${name}"; "adcap remote list" shows the configured ones.`);
      const stored = await clientFor(found)
        .catalogue({ refresh: 'never' })
        .catch(() => null);
      const shown = {
        ...found,
        registry: stored?.payload.registry ?? null,
        sequence: stored?.payload.sequence ?? null,
        checkedAt: stored?.checkedAt ?? null,
        capabilities: stored === null ? null : stored.capabilityCount,
        layout: stored === null ? null : stored.layout,
      };
      output.result(shown, () => [
        `${shown.name}${remoteMark(shown)}`,
        `  url: ${shown.url}`,
        ...shown.rootKeys.map((k) => `  root key: ${k}`),
        ...(shown.minSequence === undefined ? [] : [`  minimum sequence: ${shown.minSequence}`]),
        shown.sequence === null
          ? '  catalogue: not fetched yet (adcap remote update)'
          : `  catalogue: "${cliListText(shown.registry ?? '')}" sequence ${shown.sequence}, ` +
            `${shown.capabilities ?? 0} capabilities, verified ${shown.checkedAt ?? '-'}`,
        // docs/scaling.md: v1 is one signed catalogue; v2 hashed bins under a signed top level.
        ...(shown.layout === null
          ? []
          : [`  layout: ${shown.layout === 'v2' ? 'v2 (hashed bins under one signed top level)' : 'v1 (one signed catalogue)'}`]),
        ...(shown.managed === null ? [] : [`  ${shown.managed.text} It cannot be removed.`]),
        ...(shown.used ? [] : ['  not used: your organisation allows only the registries its policy lists.']),
      ]);
    });

  remote
    .command('remove')
    .description('remove a remote and its stored catalogue')
    .argument('<name>', 'remote name')
    .action(async (name: string) => {
      assertRemoteRemovable(await policyOf(ctx), name);
      if ((await remoteRows(ctx)).some((r) => r.name === name && r.builtIn === true)) {
        throw new AdcapError(
          'E_USAGE',
          `"${name}" is the registry built into Arcotheon and cannot be removed; ` +
            'its capabilities are only installed when you ask for them.',
        );
      }
      await removeRemote(ctx.home(), name);
      output.result({ removed: name }, () => `removed remote ${name}`);
    });

  remote
    .command('update')
    .description('fetch and verify catalogues now (all remotes, or one)')
    .argument('[name]', 'remote name')
    .action(async (name: string | undefined) => {
      const home = ctx.home();
      // Under a policy that lists registries, those are the ones updated (and only they are used).
      const inForce = (await remoteRows(ctx)).filter((r) => r.used);
      const remotes = name === undefined ? inForce : [inForce.find((r) => r.name === name) ?? (await getRemote(home, name))];
      const rows: RemoteSummary[] = [];
      let firstError: unknown = null;
      for (const r of remotes) {
        try {
          rows.push(remoteSummary(r, await clientFor(r).update()));
        } catch (error) {
          firstError ??= error;
          output.note(`remote ${r.name}: ${isAdcapError(error) ? `${error.code}: ${surfaceMessage(error, 'cli')}` : String(error)}`);
        }
      }
      if (firstError !== null) throw firstError;
      output.result(rows, () =>
        rows.length === 0
          ? 'no remotes to update'
          : rows.map((r) => `${r.name}: sequence ${r.sequence}${r.changed ? ' (new)' : ' (unchanged)'}, ${r.capabilities} capabilities`),
      );
    });

  program
    .command('search')
    .description('search the catalogues of all remotes by id, name, summary and keywords')
    .argument('[query]', 'words to look for (empty lists everything)', '')
    .option('--tier <tier>', 'free or pro', parseTier)
    .option('--access <access>', 'public or entitled', parseAccess)
    .option('--installed', 'only installed capabilities')
    .option('--not-installed', 'only capabilities that are not installed')
    .option('--remote <name>', 'search only this remote')
    .option('--limit <n>', `at most this many results (default for a person: ${DEFAULT_LIST_ROWS}; with --json: all)`, parseNonNegative)
    .option('--all', 'print every result')
    .action(
      async (
        query: string,
        opts: { tier?: Tier; access?: Access; installed?: boolean; notInstalled?: boolean; remote?: string; limit?: number; all?: boolean },
      ) => {
        if (opts.all === true && opts.limit !== undefined) throw new AdcapError('E_USAGE', 'Give either --limit or --all, not both.');
        // The names and the "no remotes" case are checked here, with the CLI's messages.
        await remotesFor(ctx, opts.remote);
        const filters: Parameters<Arcotheon['search']>[1] = {};
        if (opts.tier !== undefined) filters.tier = opts.tier;
        if (opts.access !== undefined) filters.access = opts.access;
        if (opts.installed === true) filters.installed = true;
        if (opts.notInstalled === true) filters.installed = false;
        if (opts.remote !== undefined) filters.remote = opts.remote;
        // The SDK's one search: the same hits in the same order as every host gets. JSON gets every
        // hit unless --limit says otherwise; a person gets the first rows and a count of the rest
        // (counted without making a hit of each), with catalogue text escaped.
        const arc = await openArcotheon(ctx);
        const shownRows = opts.all === true ? null : (opts.limit ?? DEFAULT_LIST_ROWS);
        const page =
          output.json || shownRows === null
            ? null
            : await searchRemotesCounted(storeOf(arc), query, { ...filters, limit: shownRows }, () => arc.list());
        const hits = page?.hits ?? (await arc.search(query, filters));
        const total = page?.total ?? hits.length;
        const limited = opts.limit === undefined ? hits : hits.slice(0, opts.limit);
        output.result(
          limited.map((h) => ({
            id: h.id,
            name: h.name,
            summary: h.summary,
            latest: h.latest,
            tier: h.tier,
            access: h.access,
            installed: h.installed,
          })),
          () =>
            total === 0
              ? `no capabilities match "${cliListText(query)}"`
              : truncatedList(
                  hits,
                  shownRows,
                  (h) => `${h.id}@${h.latest ?? h.latestPrerelease ?? '-'}  ${cliListText(h.name)} - ${cliListText(h.summary)}${flags(h)}`,
                  { hint: 'use --limit <n> or --all to see more, or narrow the search', total },
                ),
        );
      },
    );

  program
    .command('show')
    .description(
      'show a capability: what is installed (skills, tools and their input fields) and what the remotes list (versions and their status)',
    )
    .argument('<id>', 'capability id, e.g. acme/pdf')
    .option('--remote <name>', 'look only in this remote')
    .action(async (id: string, opts: { remote?: string }) => {
      parseCapabilityId(id);
      const arc = await openArcotheon(ctx);
      // An installed capability shows from any source (sideloaded too), even when no
      // remote lists it or the remotes cannot be reached.
      const installed = await installedView(arc, id);
      let listed: Listed | null = null;
      try {
        await remotesFor(ctx, opts.remote);
        listed = await showCapability(arc, id, opts.remote);
      } catch (error) {
        if (installed === null) throw error;
        output.note(
          'note: the remotes could not be read ' +
            `(${isAdcapError(error) ? `${error.code}: ${surfaceMessage(error, 'cli')}` : String(error)}); ` +
            'showing the installed copy only',
        );
      }
      if (listed === null && installed === null) {
        throw new AdcapError('E_NOT_FOUND', `${id} is not installed and no remote lists it; search for it with "adcap search".`);
      }
      const shown: Shown = listed !== null ? { ...listed, installed } : { ...unlisted(id, installed as InstalledView), installed };
      output.result(shown, () => showLines(shown));
    });
}

interface RemoteSummary {
  name: string;
  url: string;
  registry: string;
  sequence: number;
  generatedAt: string;
  capabilities: number;
  /** Which layout the registry served (docs/scaling.md). */
  layout: 'v1' | 'v2';
  /** Bytes the update downloaded. */
  downloadedBytes: number;
  changed: boolean;
}

/** What `remote add` and `remote update` report per remote. */
function remoteSummary(remote: RemoteConfig, loaded: LoadedCatalogue): RemoteSummary {
  return {
    name: remote.name,
    url: remote.url,
    registry: loaded.payload.registry,
    sequence: loaded.payload.sequence,
    generatedAt: loaded.payload.generatedAt,
    capabilities: loaded.capabilityCount,
    layout: loaded.layout,
    downloadedBytes: loaded.downloadedBytes,
    changed: loaded.changed,
  };
}

async function remotesFor(ctx: CliContext, name: string | undefined): Promise<RemoteConfig[]> {
  const home = ctx.home();
  // A policy that lists registries replaces the configured ones (and the embedded default).
  const rows = await remoteRows(ctx);
  const managed = rows.filter((r) => r.managed !== null).map(({ managed: _m, used: _u, ...r }) => r);
  // A policy that lists registries is in force when it left a configured one unused, or listed any.
  const underPolicy = managed.length > 0 || rows.some((r) => !r.used);
  const remotes = underPolicy ? managed : await withEmbeddedDefault((await readHomeConfig(home)).remotes, ctx.io.env);
  if (name !== undefined) {
    const found = remotes.find((r) => r.name === name);
    return found === undefined ? [await getRemote(home, name)] : [found];
  }
  if (remotes.length === 0)
    throw new AdcapError('E_NOT_FOUND', 'No remotes are configured; add one with "adcap remote add <name> <url> --root-key <base64>".');
  return remotes;
}

/**
 * The embedded default remote (the bundled example registry, sdk/src/registry/embedded.ts)
 * comes after the configured remotes, unless config.json has a remote of the same name.
 */
async function withEmbeddedDefault(configured: RemoteConfig[], env: CliContext['io']['env']): Promise<RemoteConfig[]> {
  const embedded = await loadEmbeddedRemote(env);
  return embedded === null || configured.some((r) => r.name === embedded.name) ? configured : [...configured, embedded];
}

type Listed = NonNullable<Awaited<ReturnType<typeof showCapability>>>;
type Shown = Omit<Listed, 'remote' | 'tier' | 'access'> & {
  remote: string | null;
  tier: string | null;
  access: string | null;
  installed: InstalledView | null;
};

/** What `show` says of an installed capability that no remote lists (a sideloaded one). */
function unlisted(id: string, installed: InstalledView): Omit<Shown, 'installed'> {
  return {
    id,
    remote: null,
    name: installed.name,
    summary: installed.summary,
    publisher: parseCapabilityId(id).publisher,
    latest: null,
    latestPrerelease: null,
    tier: null,
    access: null,
    keywords: [],
    deprecated: null,
    versions: {},
  };
}

/**
 * The capability as the SDK's one lookup finds it: the package document from
 * `Arcotheon.packageDoc` (the registry it was installed from first, else the first remote listing
 * it; only `remote` when given), and its catalogue entry from that same remote through
 * `Arcotheon.search`; null when no remote lists it.
 */
async function showCapability(arc: Arcotheon, id: string, remote: string | undefined) {
  let doc: Awaited<ReturnType<Arcotheon['packageDoc']>>;
  try {
    doc = await arc.packageDoc(id, remote === undefined ? {} : { remote });
  } catch (error) {
    if (isAdcapError(error, 'E_NOT_FOUND')) return null;
    throw error;
  }
  const cap = (await arc.search(id, { remote: doc.remote })).find((hit) => hit.id === id);
  if (cap === undefined) return null;
  const ordered = Object.fromEntries(
    Object.keys(doc.versions)
      .sort((a, b) => compareVersions(b, a))
      .map((v) => [v, doc.versions[v]]),
  );
  return {
    id,
    remote: doc.remote,
    name: cap.name,
    summary: cap.summary,
    publisher: cap.publisher,
    latest: cap.latest,
    latestPrerelease: cap.latestPrerelease,
    tier: cap.tier,
    access: cap.access,
    keywords: cap.keywords,
    deprecated: doc.deprecated ?? null,
    versions: ordered,
  };
}

/** `show` for a person; text from packages and catalogues is escaped. */
function showLines(shown: Shown): string[] {
  const t = cliListText;
  const where = shown.remote === null ? 'not listed by any remote' : `from ${shown.remote}`;
  const lines = [`${shown.id} - ${t(shown.name)} (${where})`, t(shown.summary)];
  if (shown.deprecated !== null) lines.push(`DEPRECATED: ${t(shown.deprecated.message ?? '')}`);
  const installed = shown.installed;
  if (installed !== null) {
    const source =
      installed.source.kind === 'registry'
        ? `from remote ${installed.source.remote}`
        : installed.source.added !== undefined
          ? `added by you from ${originText(installed.source.added)}` // docs/skills.md: the built file was temporary
          : `sideloaded from ${installed.source.file}`;
    lines.push(`installed: ${installed.version} (${installed.status}, ${source})${installed.explicit ? '' : ', as a dependency'}`);
    lines.push(`  directory: ${installed.dir}`);
    lines.push(`  grants: ${installed.grants.join(', ') || 'none'}`);
    if (installed.skills.length > 0)
      lines.push('skills (Agent Skills directories):', ...installed.skills.map((s) => `  ${t(s.name)}  ${t(s.dir)}`));
    if (installed.tools.length > 0) {
      lines.push(`tools (run with: adcap run ${shown.id} <tool> --input '{...}'):`);
      for (const tool of installed.tools) {
        lines.push(`  ${t(tool.name)} (${tool.runtime}): ${t(tool.description)}`);
        if (tool.permissions.length > 0) lines.push(`    needs: ${tool.permissions.map(t).join(', ')}`);
        if (tool.input === null) lines.push('    input: any JSON object (its schema names no fields)');
        else if (tool.input.length === 0) lines.push('    input: none, pass {}');
        else {
          lines.push('    input:');
          for (const f of tool.input) {
            const notes = [f.type, f.required ? 'required' : 'optional'].filter((n) => n !== '').join(', ');
            lines.push(`      ${t(f.name)} (${notes})${f.description === undefined ? '' : ` - ${t(f.description)}`}`);
          }
        }
      }
    }
    if (installed.workflows.length > 0) lines.push('workflows:', ...installed.workflows.map((w) => `  ${t(w)}`));
  } else if (shown.remote !== null) {
    lines.push(...beforeInstallLines(shown));
  }
  if (shown.remote !== null) {
    const prerelease = shown.latestPrerelease === null ? '' : `, prerelease: ${shown.latestPrerelease}`;
    lines.push(`latest: ${shown.latest ?? 'none'}${prerelease}  tier: ${shown.tier}  access: ${shown.access}`);
    lines.push('versions:');
    const versions: string[] = [];
    for (const [version, entry] of Object.entries(shown.versions)) {
      if (entry === undefined) continue;
      const status =
        entry.status === undefined ? '' : `  [${entry.status}${entry.statusReason === undefined ? '' : `: ${t(entry.statusReason)}`}]`;
      versions.push(`  ${version}  ${entry.archive.size} bytes  published ${entry.publishedAt}${status}`);
    }
    // Newest first; a long history is cut with a count.
    lines.push(...truncatedRows(versions, DEFAULT_LIST_ROWS, 'use --json to see every version'));
  }
  return lines;
}

/**
 * What a capability that is not installed can do, from its signed registry entry (spec §13): the
 * permissions it asks for in plain language with the publisher's reasons, its skills, tools,
 * workflows and dependencies, for the version `install` would choose.
 */
function beforeInstallLines(shown: Shown): string[] {
  const t = cliListText;
  const version = shown.latest ?? shown.latestPrerelease;
  const entry = version === null ? undefined : shown.versions[version];
  if (entry === undefined) return [];
  const lines = [`not installed; ${entry.version} would install (${formatBytes(entry.archive.size)} to download):`];
  if (entry.permissions.length === 0) lines.push('  permissions: none');
  else {
    lines.push('  permissions it asks for:');
    for (const permission of entry.permissions) {
      lines.push(`    ${describePermission(permission)} [${riskLevel(permission)} risk] - ${t(permission.reason)}`);
    }
  }
  const { contents } = entry;
  if (contents.skills.length > 0) lines.push(`  skills: ${contents.skills.map(t).join(', ')}`);
  for (const { skill, programs } of contents.skillPrograms ?? []) {
    lines.push(
      `    ${t(skill)} contains ${programs.length} program${programs.length === 1 ? '' : 's'} your agent may run outside the sandbox`,
    );
  }
  if (contents.tools.length > 0) lines.push(`  tools: ${contents.tools.map(t).join(', ')} (their input fields show once installed)`);
  if (contents.workflows.length > 0) lines.push(`  workflows: ${contents.workflows.map(t).join(', ')}`);
  const dependencies = Object.entries(entry.dependencies);
  if (dependencies.length > 0) lines.push(`  needs: ${dependencies.map(([id, range]) => `${id} ${t(range)}`).join(', ')}`);
  return lines;
}

function flags(hit: SearchHit): string {
  const parts = [
    hit.tier === 'pro' ? 'pro' : '',
    hit.access === 'entitled' ? 'entitled' : '',
    hit.installed ? 'installed' : '',
    hit.deprecated ? 'deprecated' : '',
  ].filter((p) => p !== '');
  return parts.length === 0 ? '' : `  [${parts.join(', ')}]`;
}

/** A remote as `remote list` and `remote show` report it (what the policy decides about it). */
type RemoteRow = RemoteConfig & {
  /** Set when the organisation policy lists it: added for the user, it cannot be removed. */
  managed: { text: string } | null;
  /** False for a configured remote the policy's registry list leaves out (it is not used). */
  used: boolean;
  /** The registry this copy of Arcotheon ships (the bundled examples): used unless config.json names another of its name. */
  builtIn?: true;
  sequence?: number | null;
  checkedAt?: string | null;
};

/**
 * The configured remotes and, under a policy that lists registries, the policy's: those are the
 * ones in force (managed), and the configured ones it leaves out are shown as not used. Read-only:
 * an invalid policy is reported on stderr and the configured remotes are listed.
 */
async function remoteRows(ctx: CliContext): Promise<RemoteRow[]> {
  const configured = await listRemotes(ctx.home());
  let loaded: LoadedPolicy | null = null;
  try {
    loaded = await policyOf(ctx);
  } catch (error) {
    if (!isAdcapError(error, 'E_POLICY')) throw error;
    ctx.output.note(`${error.message} (E_POLICY)`);
  }
  const listed = loaded?.policy.remotes;
  if (loaded === null || listed === undefined) {
    // As the SDK does (RegistrySources.remotes): the shipped registry is used unless config.json has one of its name.
    const shipped = await loadEmbeddedRemote(ctx.io.env);
    const builtIn: RemoteRow[] =
      shipped === null || configured.some((r) => r.name === shipped.name) ? [] : [{ ...shipped, managed: null, used: true, builtIn: true }];
    return [...configured.map((r) => ({ ...r, managed: null, used: true })), ...builtIn];
  }
  const text = managedBy(loaded, 'remotes');
  const managed: RemoteRow[] = listed.map((r) => ({
    name: r.name,
    url: normalizeRemoteUrl(r.url),
    rootKeys: [...r.rootKeys],
    managed: { text },
    used: true,
  }));
  const names = new Set(managed.map((r) => r.name));
  return [...managed, ...configured.filter((r) => !names.has(r.name)).map((r) => ({ ...r, managed: null, used: false }))];
}

/** The mark after a remote's line: managed by the organisation, or left out by its policy. */
function remoteMark(r: Pick<RemoteRow, 'managed' | 'used' | 'builtIn'>): string {
  if (r.managed !== null) return '\t[managed by your organisation; cannot be removed]';
  if (r.builtIn === true) return '\t[built in: ships with Arcotheon; cannot be removed]';
  return r.used ? '' : '\t[not used: the policy allows only its own registries]';
}

/** The organisation policy in force for this command (E_POLICY when it is invalid: a change stops). */
function policyOf(ctx: CliContext): ReturnType<typeof loadPolicy> {
  return loadPolicy({ env: ctx.io.env, platform: ctx.io.platform });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function parseNonNegative(value: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new AdcapError('E_USAGE', `"${value}" is not a non-negative integer.`);
  return Number(value);
}

function parseTier(value: string): Tier {
  if (value !== 'free' && value !== 'pro') throw new AdcapError('E_USAGE', `--tier must be "free" or "pro", not "${value}".`);
  return value;
}

function parseAccess(value: string): Access {
  if (value !== 'public' && value !== 'entitled')
    throw new AdcapError('E_USAGE', `--access must be "public" or "entitled", not "${value}".`);
  return value;
}
