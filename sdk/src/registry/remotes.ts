/**
 * Remotes in the home's config.json (DESIGN §6, §8): name, the registry's v1/ URL and the pinned
 * root keys, plus an optional shipped minimum sequence (DESIGN §10). The file may carry other
 * settings owned by other parts of the SDK, so every change is a read-modify-write that keeps
 * unknown fields, done under the config lock and written atomically.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AdcapError, asAdcapError } from '../errors.js';
import { parseStrictJson } from '../format/strict-json.js';
import { checkUrlAllowed } from '../cache/fetch.js';
import { decodePublicKey } from '../trust/keys.js';
import { writeJsonAtomic } from '../util/fs-atomic.js';
import { withLock } from '../util/lock.js';

/** A remote registry of a home: its name, v1/ URL and pinned root keys. */
export interface RemoteConfig {
  /** The remote's name in this home, e.g. `arcotheon` (what `--remote` and search results name). */
  name: string;
  /** The registry's v1/ folder (where catalog.json is), always ending in "/". */
  url: string;
  /** Pinned root public keys, standard base64. */
  rootKeys: string[];
  /** DESIGN §10: never accept a catalogue older than this sequence (shipped by the app). */
  minSequence?: number;
  /**
   * DESIGN §10 freeze protection for this remote: refuse catalogues generated longer ago than this.
   * Absent = the client's default (30 days); null = no age limit, for a registry bundled with the
   * app on local disk, which cannot be replayed by a mirror (minSequence still stops rollback).
   */
  maxCatalogAgeMs?: number | null;
}

/** A home's `config.json` (DESIGN §6): its remotes and settings. */
export interface HomeConfig {
  /** The remotes added with `adcap remote add` (or addRemote), in the order they are searched. */
  remotes: RemoteConfig[];
  /** Other settings of the home, kept as they are when the remotes change. */
  [setting: string]: unknown;
}

const REMOTE_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

function configPath(home: string): string {
  return join(home, 'config.json');
}

/** home/remotes/<name>/: the last verified catalogue, its state, and verified package documents. */
export function remoteStateDir(home: string, name: string): string {
  assertRemoteName(name);
  return join(home, 'remotes', name);
}

function configLockPath(home: string): string {
  return join(home, 'locks', 'config.lock');
}

export function assertRemoteName(name: string): void {
  if (!REMOTE_NAME.test(name) || name.includes('..')) {
    throw new AdcapError(
      'E_USAGE',
      `"${name}" is not a usable remote name; use lowercase letters, digits, ".", "_" and "-" (up to 64 characters).`,
    );
  }
}

/**
 * DESIGN §11: the URL given to `remote add` is the registry's v1/ folder. A trailing "/" is added
 * so relative document and archive URLs resolve inside it; a URL naming catalog.json itself is
 * taken as its folder. https, file and loopback http only (checkUrlAllowed).
 */
export function normalizeRemoteUrl(url: string): string {
  const parsed = checkUrlAllowed(url);
  if (parsed.search !== '' || parsed.hash !== '') {
    throw new AdcapError(
      'E_USAGE',
      `The remote URL ${parsed.href} has a query or fragment; give the plain URL of the registry's v1/ folder.`,
    );
  }
  if (parsed.pathname.endsWith('/catalog.json')) parsed.pathname = parsed.pathname.slice(0, -'catalog.json'.length);
  if (!parsed.pathname.endsWith('/')) parsed.pathname += '/';
  return parsed.href;
}

export function checkRemoteConfig(value: unknown, where: string): RemoteConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AdcapError('E_USAGE', `${where} is not a remote object; fix or remove it in config.json.`);
  }
  const record = value as Record<string, unknown>;
  const name = record['name'];
  const url = record['url'];
  const rootKeys = record['rootKeys'];
  const minSequence = record['minSequence'];
  const maxCatalogAgeMs = record['maxCatalogAgeMs'];
  if (typeof name !== 'string') throw new AdcapError('E_USAGE', `${where} has no name; fix or remove it in config.json.`);
  assertRemoteName(name);
  if (typeof url !== 'string') throw new AdcapError('E_USAGE', `Remote "${name}" has no url; remove it and add it again.`);
  if (!Array.isArray(rootKeys) || rootKeys.length === 0 || !rootKeys.every((k) => typeof k === 'string')) {
    throw new AdcapError('E_USAGE', `Remote "${name}" has no pinned root keys; remove it and add it again with --root-key.`);
  }
  for (const key of rootKeys as string[]) decodePublicKey(key, `A root key of remote "${name}"`);
  if (minSequence !== undefined && (typeof minSequence !== 'number' || !Number.isSafeInteger(minSequence) || minSequence < 0)) {
    throw new AdcapError('E_USAGE', `Remote "${name}" has a minSequence that is not a non-negative integer; fix it in config.json.`);
  }
  if (
    maxCatalogAgeMs !== undefined &&
    maxCatalogAgeMs !== null &&
    (typeof maxCatalogAgeMs !== 'number' || !Number.isSafeInteger(maxCatalogAgeMs) || maxCatalogAgeMs <= 0)
  ) {
    throw new AdcapError(
      'E_USAGE',
      `Remote "${name}" has a maxCatalogAgeMs that is neither null nor a positive integer of milliseconds; fix it in config.json.`,
    );
  }
  const remote: RemoteConfig = { name, url: normalizeRemoteUrl(url), rootKeys: [...(rootKeys as string[])] };
  if (minSequence !== undefined) remote.minSequence = minSequence;
  if (maxCatalogAgeMs !== undefined) remote.maxCatalogAgeMs = maxCatalogAgeMs as number | null;
  return remote;
}

/** Reads home/config.json; a missing file is an empty config. */
export async function readHomeConfig(home: string): Promise<HomeConfig> {
  let bytes: Buffer;
  try {
    bytes = await readFile(configPath(home));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { remotes: [] };
    throw asAdcapError(error, `Cannot read ${configPath(home)}`);
  }
  let value: unknown;
  try {
    value = parseStrictJson(bytes, `${configPath(home)}`);
  } catch (error) {
    throw new AdcapError('E_USAGE', `${configPath(home)} is not valid JSON (${(error as Error).message}); fix or remove it.`, {
      cause: error,
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AdcapError('E_USAGE', `${configPath(home)} is not a JSON object; fix or remove it.`);
  }
  const record = value as Record<string, unknown>;
  const remotesIn = record['remotes'] ?? [];
  if (!Array.isArray(remotesIn)) throw new AdcapError('E_USAGE', `"remotes" in ${configPath(home)} is not an array; fix or remove it.`);
  const remotes = remotesIn.map((remote: unknown, index) => checkRemoteConfig(remote, `remotes[${index}]`));
  return { ...record, remotes };
}

/** Read-modify-write of config.json under the config lock; `change` edits the config in place. */
export async function updateHomeConfig(home: string, change: (config: HomeConfig) => void | Promise<void>): Promise<HomeConfig> {
  return withLock(
    configLockPath(home),
    'config.json update',
    async () => {
      const config = await readHomeConfig(home);
      await change(config);
      try {
        await writeJsonAtomic(configPath(home), config);
      } catch (error) {
        throw asAdcapError(error, `Cannot write ${configPath(home)}`);
      }
      return config;
    },
    { what: 'The Arcotheon config file' },
  );
}

/** The remotes in a home's config.json. */
export async function listRemotes(home: string): Promise<RemoteConfig[]> {
  return (await readHomeConfig(home)).remotes;
}

/** The remote of this name in a home's config.json; E_NOT_FOUND when there is none. */
export async function getRemote(home: string, name: string): Promise<RemoteConfig> {
  const remote = (await listRemotes(home)).find((r) => r.name === name);
  if (remote === undefined) throw new AdcapError('E_NOT_FOUND', `There is no remote named "${name}"; list them with "adcap remote list".`);
  return remote;
}

/** Adds a remote; an existing name is refused so a pinned key is never replaced by accident. */
export async function addRemote(
  home: string,
  input: { name: string; url: string; rootKeys: string[]; minSequence?: number },
): Promise<RemoteConfig> {
  const remote = checkRemoteConfig(input, `The remote "${input.name}"`);
  await updateHomeConfig(home, (config) => {
    if (config.remotes.some((r) => r.name === remote.name)) {
      throw new AdcapError(
        'E_USAGE',
        `A remote named "${remote.name}" already exists; remove it first with "adcap remote remove ${remote.name}".`,
      );
    }
    config.remotes.push(remote);
  });
  return remote;
}

/** Removes a remote and its stored catalogue and documents. */
export async function removeRemote(home: string, name: string): Promise<void> {
  assertRemoteName(name);
  await updateHomeConfig(home, (config) => {
    const before = config.remotes.length;
    config.remotes = config.remotes.filter((r) => r.name !== name);
    if (config.remotes.length === before)
      throw new AdcapError('E_NOT_FOUND', `There is no remote named "${name}"; list them with "adcap remote list".`);
  });
  await rm(remoteStateDir(home, name), { recursive: true, force: true });
}
