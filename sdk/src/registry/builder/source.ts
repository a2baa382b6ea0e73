/**
 * Reading and writing the registry's source files (spec §13: registry.json, publishers/, entries/,
 * status/). Every read is strict JSON checked against its definition in sdk/schema/registry-1.json
 * (plus the rules a schema cannot state), so a hand-edited file that is wrong is
 * refused with a sentence naming the file, never folded silently into the catalogue. Every write
 * is atomic (DESIGN §6), and every change happens under the registry lock.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import semver from 'semver';
import { AdcapError, asAdcapError } from '../../errors.js';
import { parseStrictJson } from '../../format/strict-json.js';
import { keyIdOf } from '../../trust/keys.js';
import { writeJsonAtomic } from '../../util/fs-atomic.js';
import { withLock } from '../../util/lock.js';
import { entryDir, entryPath, isIdPart, publisherPath, REGISTRY_CONFIG, statusPath } from '../layout.js';
import { checkRegistryDocument, type RegistryDocumentKind, type RegistryDocuments } from '../schema.js';
import type { PublisherFile, RegistryConfigFile, StatusFile, VersionEntry } from '../types.js';

/** Reads a JSON file strictly; null when it does not exist. */
export async function readJsonIfExists(path: string): Promise<unknown> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw asAdcapError(error, `Cannot read ${path}`);
  }
  return parseStrictJson(bytes, path);
}

export async function writeJson(path: string, value: unknown): Promise<void> {
  try {
    await writeJsonAtomic(path, value);
  } catch (error) {
    throw asAdcapError(error, `Cannot write ${path}`);
  }
}

function badFile(path: string, problem: string): AdcapError {
  return new AdcapError('E_SCHEMA', `${path} ${problem}; fix the file by hand or restore it from version control.`, {
    details: { file: path },
  });
}

/**
 * The file matches its definition in registry-1.json (checkRegistryDocument), or E_SCHEMA naming
 * the file, the JSON pointer and what is wrong.
 */
function checkFile<K extends RegistryDocumentKind>(kind: K, value: unknown, path: string): RegistryDocuments[K] {
  return checkRegistryDocument(
    kind,
    value,
    (problem) =>
      new AdcapError(
        'E_SCHEMA',
        `${path} does not match its schema: ${problem.text}; fix the file by hand or restore it from version control.`,
        {
          details: { file: path, pointer: problem.pointer, keyword: problem.keyword },
        },
      ),
  );
}

/** spec §5: a key id is the SHA-256 of its public key (a rule the schema cannot state). */
function keyIdMatches(key: { keyId: string; publicKey: string }): boolean {
  try {
    return keyIdOf(key.publicKey) === key.keyId;
  } catch {
    return false;
  }
}

/** Mutating registry commands take this lock so two publishes never interleave. */
export function withRegistryLock<T>(root: string, purpose: string, fn: () => Promise<T>): Promise<T> {
  return withLock(join(root, '.adcap-registry.lock'), purpose, fn, { what: `The registry at ${root}` });
}

export async function readRegistryConfig(root: string): Promise<RegistryConfigFile> {
  const path = join(root, REGISTRY_CONFIG);
  const value = await readJsonIfExists(path);
  if (value === null) {
    throw new AdcapError(
      'E_NOT_FOUND',
      `${root} is not a registry (no ${REGISTRY_CONFIG}); create one with "adcap registry init ${root} --name <name> --root-key key.json".`,
    );
  }
  const config = checkFile('registryConfig', value, path);
  config.rootKeys.forEach((key, index) => {
    if (!keyIdMatches(key)) throw badFile(path, `has rootKeys[${index}] whose keyId is not the SHA-256 of its publicKey`);
  });
  // Written before the sequence floor existed: 0 (DESIGN §10, the floor only grows from here).
  return { ...config, sequence: config.sequence ?? 0 };
}

export async function writeRegistryConfig(root: string, config: RegistryConfigFile): Promise<void> {
  await writeJson(join(root, REGISTRY_CONFIG), config);
}

export function checkPublisherFile(value: unknown, path: string, expectedId: string): PublisherFile {
  const file = checkFile('publisherFile', value, path);
  if (file.id !== expectedId) throw badFile(path, `has id ${JSON.stringify(file.id)}, but its file name says "${expectedId}"`);
  file.keys.forEach((key, index) => {
    if (!keyIdMatches(key)) throw badFile(path, `has keys[${index}] whose keyId is not the SHA-256 of its publicKey`);
  });
  // spec §13 names a publisher's keys, not a display name (registry/fallbacks.ts: the id stands in).
  return { ...file, name: file.name ?? file.id };
}

export async function readPublisher(root: string, publisher: string): Promise<PublisherFile | null> {
  const path = publisherPath(root, publisher);
  const value = await readJsonIfExists(path);
  return value === null ? null : checkPublisherFile(value, path, publisher);
}

export async function writePublisher(root: string, file: PublisherFile): Promise<void> {
  await writeJson(publisherPath(root, file.id), file);
}

export async function readAllPublishers(root: string): Promise<PublisherFile[]> {
  const names = await listNames(join(root, 'publishers'));
  const out: PublisherFile[] = [];
  for (const fileName of names) {
    if (!fileName.endsWith('.json')) continue;
    const id = fileName.slice(0, -'.json'.length);
    if (!isIdPart(id)) continue;
    const file = await readPublisher(root, id);
    if (file !== null) out.push(file);
  }
  return out;
}

async function listNames(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw asAdcapError(error, `Cannot list ${dir}`);
  }
}

/**
 * The fields this builder's entries carry beyond those spec §13 names (registry-1.json makes them
 * optional so that other builders' served files load): `build` copies search metadata from them
 * instead of opening archives, so an entry of this source tree must have them.
 */
const PUBLISHED_FIELDS = ['id', 'version', 'signers', 'publishedAt', 'name', 'summary', 'keywords'] as const;

export function checkVersionEntry(value: unknown, path: string, id: string, version: string): VersionEntry {
  const entry = checkFile('versionEntry', value, path);
  const missing = PUBLISHED_FIELDS.find((field) => entry[field] === undefined);
  if (missing !== undefined) throw badFile(path, `has no "${missing}", which "adcap registry publish" writes and "registry build" reads`);
  const contents = entry.contents;
  const list = (['skills', 'tools', 'workflows', 'knowledge', 'resources'] as const).find((field) => contents[field] === undefined);
  if (list !== undefined) throw badFile(path, `has no contents.${list}, which "adcap registry publish" writes (an empty list for none)`);
  const complete = entry as VersionEntry;
  if (complete.id !== id || complete.version !== version)
    throw badFile(path, `names ${complete.id}@${complete.version}, not ${id}@${version}`);
  return complete;
}

export async function readEntry(root: string, id: string, version: string): Promise<VersionEntry | null> {
  const path = entryPath(root, id, version);
  const value = await readJsonIfExists(path);
  return value === null ? null : checkVersionEntry(value, path, id, version);
}

/** Every version entry of one capability, in no particular order. */
export async function readEntries(root: string, id: string): Promise<VersionEntry[]> {
  const dir = entryDir(root, id);
  const out: VersionEntry[] = [];
  for (const fileName of await listNames(dir)) {
    if (!fileName.endsWith('.json')) continue;
    const version = fileName.slice(0, -'.json'.length);
    if (semver.valid(version) !== version) continue;
    const entry = await readEntry(root, id, version);
    if (entry !== null) out.push(entry);
  }
  return out;
}

/** Every capability id that has at least one entry directory (entries/<pub>/<name>/). */
export async function listCapabilityIds(root: string): Promise<string[]> {
  const ids: string[] = [];
  for (const publisher of await listNames(join(root, 'entries'))) {
    if (!isIdPart(publisher)) continue;
    for (const name of await listNames(join(root, 'entries', publisher))) {
      if (isIdPart(name)) ids.push(`${publisher}/${name}`);
    }
  }
  return ids;
}

export function checkStatusFile(value: unknown, path: string): StatusFile {
  return checkFile('statusFile', value, path);
}

export async function readStatus(root: string, id: string): Promise<StatusFile> {
  const path = statusPath(root, id);
  const value = await readJsonIfExists(path);
  return value === null ? {} : checkStatusFile(value, path);
}

export async function writeStatus(root: string, id: string, status: StatusFile): Promise<void> {
  await writeJson(statusPath(root, id), status);
}
