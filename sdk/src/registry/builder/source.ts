/**
 * Reading and writing the registry's source files (spec §13: registry.json, publishers/, entries/,
 * status/). Every read is strict JSON with a shape check, so a hand-edited file that is wrong is
 * refused with a sentence naming the file, never folded silently into the catalogue. Every write
 * is atomic (DESIGN §6), and every change happens under the registry lock.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import semver from 'semver';
import { AdcapError, asAdcapError } from '../../errors.js';
import { parseStrictJson } from '../../format/strict-json.js';
import { isKeyId, keyIdOf } from '../../trust/keys.js';
import { writeJsonAtomic } from '../../util/fs-atomic.js';
import { withLock } from '../../util/lock.js';
import { entryDir, entryPath, isIdPart, publisherPath, REGISTRY_CONFIG, statusPath } from '../layout.js';
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
  return new AdcapError('E_SCHEMA', `${path} ${problem}; fix the file by hand or restore it from version control.`, { details: { file: path } });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Mutating registry commands take this lock so two publishes never interleave. */
export function withRegistryLock<T>(root: string, purpose: string, fn: () => Promise<T>): Promise<T> {
  return withLock(join(root, '.adcap-registry.lock'), purpose, fn, { what: `The registry at ${root}` });
}

export async function readRegistryConfig(root: string): Promise<RegistryConfigFile> {
  const path = join(root, REGISTRY_CONFIG);
  const value = await readJsonIfExists(path);
  if (value === null) {
    throw new AdcapError('E_NOT_FOUND', `${root} is not a registry (no ${REGISTRY_CONFIG}); create one with "adcap registry init ${root} --name <name> --root-key key.json".`);
  }
  if (!isRecord(value) || typeof value['registry'] !== 'string' || value['spec'] !== 1) throw badFile(path, 'is not a registry.json with "registry" and "spec": 1');
  const rootKeys = value['rootKeys'];
  if (!Array.isArray(rootKeys) || rootKeys.length === 0) throw badFile(path, 'lists no root keys');
  for (const key of rootKeys) {
    if (!isRecord(key) || typeof key['publicKey'] !== 'string' || key['keyId'] !== keyIdOf(key['publicKey'])) {
      throw badFile(path, 'has a root key whose keyId is not the SHA-256 of its publicKey');
    }
  }
  const sequence = value['sequence'] ?? 0;
  if (typeof sequence !== 'number' || !Number.isSafeInteger(sequence) || sequence < 0) throw badFile(path, 'has a sequence that is not a non-negative integer');
  return { ...value, sequence } as unknown as RegistryConfigFile;
}

export async function writeRegistryConfig(root: string, config: RegistryConfigFile): Promise<void> {
  await writeJson(join(root, REGISTRY_CONFIG), config);
}

export function checkPublisherFile(value: unknown, path: string, expectedId: string): PublisherFile {
  if (!isRecord(value)) throw badFile(path, 'is not a JSON object');
  if (value['id'] !== expectedId) throw badFile(path, `has id ${JSON.stringify(value['id'])}, but its file name says "${expectedId}"`);
  if (typeof value['name'] !== 'string') throw badFile(path, 'has no "name" string');
  const keys = value['keys'];
  if (!Array.isArray(keys)) throw badFile(path, 'has no "keys" array');
  keys.forEach((key: unknown, index) => {
    if (!isRecord(key) || typeof key['publicKey'] !== 'string' || !isKeyId(key['keyId'])) throw badFile(path, `has a malformed key at keys[${index}]`);
    if (key['keyId'] !== keyIdOf(key['publicKey'])) throw badFile(path, `has keys[${index}] whose keyId is not the SHA-256 of its publicKey`);
    if (key['status'] !== 'active' && key['status'] !== 'revoked') throw badFile(path, `has keys[${index}] with a status other than "active" or "revoked"`);
  });
  return value as unknown as PublisherFile;
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

export function checkVersionEntry(value: unknown, path: string, id: string, version: string): VersionEntry {
  if (!isRecord(value)) throw badFile(path, 'is not a JSON object');
  if (value['id'] !== id || value['version'] !== version) throw badFile(path, `names ${String(value['id'])}@${String(value['version'])}, not ${id}@${version}`);
  const archive = value['archive'];
  if (!isRecord(archive) || typeof archive['sha256'] !== 'string' || typeof archive['size'] !== 'number' || !Array.isArray(archive['urls'])) {
    throw badFile(path, 'has no valid "archive" { sha256, size, urls }');
  }
  for (const field of ['manifestSha256', 'name', 'summary', 'tier', 'access', 'publishedAt'] as const) {
    if (typeof value[field] !== 'string') throw badFile(path, `has no "${field}" string`);
  }
  if (!Array.isArray(value['keywords'])) throw badFile(path, 'has no "keywords" array');
  return value as unknown as VersionEntry;
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
  if (!isRecord(value)) throw badFile(path, 'is not a JSON object');
  const deprecated = value['deprecated'];
  if (deprecated !== undefined && (!isRecord(deprecated) || typeof deprecated['message'] !== 'string')) {
    throw badFile(path, 'has a "deprecated" that is not { "message": "..." }');
  }
  for (const field of ['yanked', 'revoked'] as const) {
    const map = value[field];
    if (map !== undefined && (!isRecord(map) || !Object.values(map).every((reason) => typeof reason === 'string'))) {
      throw badFile(path, `has a "${field}" that is not an object of version to reason`);
    }
  }
  return value as StatusFile;
}

export async function readStatus(root: string, id: string): Promise<StatusFile> {
  const path = statusPath(root, id);
  const value = await readJsonIfExists(path);
  return value === null ? {} : checkStatusFile(value, path);
}

export async function writeStatus(root: string, id: string, status: StatusFile): Promise<void> {
  await writeJson(statusPath(root, id), status);
}
