/**
 * Registry maintenance that edits source files (DESIGN §11): `registry init`, `add-publisher`,
 * `revoke-key`, `yank`, `revoke`, `deprecate`. None of these touches v1/: clients see the change
 * after the next `registry build`, which folds it into the signed tree (spec §13).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { AdcapError, asAdcapError } from '../../errors.js';
import { keyIdOf, type KeyFile } from '../../trust/keys.js';
import { assertPublisherId, parseCapabilityId, REGISTRY_CONFIG, assertVersion } from '../layout.js';
import type { PublisherFile, RegistryConfigFile, StatusFile } from '../types.js';
import {
  readEntries,
  readEntry,
  readJsonIfExists,
  readPublisher,
  readRegistryConfig,
  readStatus,
  withRegistryLock,
  writePublisher,
  writeRegistryConfig,
  writeStatus,
} from './source.js';

export function isoSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** `adcap registry init <dir> --name <registry> --root-key key.json`: stores only public root keys. */
export async function initRegistry(
  root: string,
  options: { name: string; rootKeys: readonly Pick<KeyFile, 'publicKey'>[] },
): Promise<RegistryConfigFile> {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(options.name)) {
    throw new AdcapError('E_USAGE', `"${options.name}" is not a usable registry name; use letters, digits, ".", "_" and "-".`);
  }
  if (options.rootKeys.length === 0)
    throw new AdcapError('E_USAGE', 'A registry needs at least one root key; pass --root-key key.json (create one with "adcap keygen").');
  try {
    await mkdir(root, { recursive: true });
  } catch (error) {
    throw asAdcapError(error, `Cannot create ${root}`);
  }
  return withRegistryLock(root, 'registry init', async () => {
    if ((await readJsonIfExists(join(root, REGISTRY_CONFIG))) !== null) {
      throw new AdcapError('E_USAGE', `${root} is already a registry (it has ${REGISTRY_CONFIG}); use another directory.`);
    }
    const config: RegistryConfigFile = {
      registry: options.name,
      spec: 1,
      rootKeys: options.rootKeys.map((key) => ({ keyId: keyIdOf(key.publicKey), publicKey: key.publicKey })),
      sequence: 0,
    };
    for (const dir of ['publishers', 'entries', 'status', join('v1', 'packages'), join('v1', 'blobs', 'sha256')]) {
      await mkdir(join(root, dir), { recursive: true });
    }
    await writeRegistryConfig(root, config);
    return config;
  });
}

/**
 * `adcap registry add-publisher <dir> <pub> --key <base64> [--name "..."]`: creates the publisher,
 * or adds a key to an existing one (key rotation: add the new key, publish with it, then revoke the
 * old one). Adding a key that was revoked is refused: revocation is permanent.
 */
export async function addPublisher(root: string, publisher: string, options: { publicKey: string; name?: string }): Promise<PublisherFile> {
  assertPublisherId(publisher);
  const keyId = keyIdOf(options.publicKey);
  return withRegistryLock(root, 'registry add-publisher', async () => {
    await readRegistryConfig(root);
    const existing = await readPublisher(root, publisher);
    const file: PublisherFile = existing ?? { id: publisher, name: options.name ?? publisher, keys: [] };
    if (options.name !== undefined) file.name = options.name;
    const known = file.keys.find((key) => key.keyId === keyId);
    if (known?.status === 'revoked') {
      throw new AdcapError(
        'E_REVOKED',
        `Key ${keyId} of publisher "${publisher}" was ` +
          `revoked at ${known.revokedAt ?? 'an earlier time'}; ` +
          'a revoked key cannot be added back, generate a new key.',
      );
    }
    if (known === undefined) file.keys.push({ keyId, publicKey: options.publicKey, status: 'active' });
    await writePublisher(root, file);
    return file;
  });
}

/** `adcap registry revoke-key <dir> <pub> <keyId>`: the key stays listed, as revoked (DESIGN §11). */
export async function revokeKey(root: string, publisher: string, keyId: string, options: { now?: Date } = {}): Promise<PublisherFile> {
  assertPublisherId(publisher);
  return withRegistryLock(root, 'registry revoke-key', async () => {
    await readRegistryConfig(root);
    const file = await readPublisher(root, publisher);
    if (file === null)
      throw new AdcapError('E_NOT_FOUND', `There is no publisher "${publisher}" in ${root}; add it with "adcap registry add-publisher".`);
    const key = file.keys.find((k) => k.keyId === keyId);
    if (key === undefined)
      throw new AdcapError(
        'E_NOT_FOUND',
        `Publisher "${publisher}" has no key ${keyId}; the keys are listed in publishers/${publisher}.json.`,
      );
    if (key.status !== 'revoked') {
      key.status = 'revoked';
      key.revokedAt = isoSeconds(options.now ?? new Date());
      await writePublisher(root, file);
    }
    return file;
  });
}

type VersionMark = 'yanked' | 'revoked';

/**
 * spec §13: yanked = do not choose automatically; revoked = never install or run. Both stay
 * visible in the package document with their reason. Marking again replaces the reason.
 */
async function markVersion(root: string, id: string, version: string, mark: VersionMark, reason: string): Promise<StatusFile> {
  parseCapabilityId(id);
  assertVersion(version);
  return withRegistryLock(root, `registry ${mark === 'yanked' ? 'yank' : 'revoke'}`, async () => {
    await readRegistryConfig(root);
    if ((await readEntry(root, id, version)) === null) {
      throw new AdcapError('E_NOT_FOUND', `${id}@${version} was never published in ${root}; check the id and version.`);
    }
    const status = await readStatus(root, id);
    status[mark] = { ...(status[mark] ?? {}), [version]: reason };
    await writeStatus(root, id, status);
    return status;
  });
}

/** Marks a version yanked in a registry's status file: not chosen automatically (spec §13). */
export function yankVersion(root: string, id: string, version: string, reason = 'yanked by the publisher'): Promise<StatusFile> {
  return markVersion(root, id, version, 'yanked', reason);
}

/** Marks a version revoked in a registry's status file: never installed or run again (spec §13). */
export function revokeVersion(root: string, id: string, version: string, reason = 'revoked by the registry'): Promise<StatusFile> {
  return markVersion(root, id, version, 'revoked', reason);
}

/** `adcap registry deprecate <dir> <id> [--message ...]` */
export async function deprecateCapability(root: string, id: string, message = 'This capability is deprecated.'): Promise<StatusFile> {
  parseCapabilityId(id);
  return withRegistryLock(root, 'registry deprecate', async () => {
    await readRegistryConfig(root);
    if ((await readEntries(root, id)).length === 0) {
      throw new AdcapError('E_NOT_FOUND', `${id} was never published in ${root}; check the id.`);
    }
    const status = await readStatus(root, id);
    status.deprecated = { message };
    await writeStatus(root, id, status);
    return status;
  });
}
