/**
 * Resource mirroring into a static registry (spec §9, §13): a registry may serve the resources and
 * shards of the capabilities it lists by content address, at `v1/blobs/sha256/<hex>` (beside the
 * archives, which live at `v1/blobs/sha256/<hex>.adcap`). A host that installed from this registry
 * can then fetch `<v1>/blobs/sha256/<sha>` after the declared https sources fail, which is how a
 * bundled registry works with no network. The bytes are still pinned by the manifest (resources)
 * or the shard map (shards), so a mirror can never change what a tool sees.
 *
 * The copy follows the content-cache pattern: temp file in the target folder, hash what was copied,
 * rename into the content address, fsync the folder; an existing blob whose bytes verify is left
 * alone (a no-op), a damaged one is replaced.
 */
import { copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { AdcapError, asAdcapError } from '../../errors.js';
import { hashFile } from '../../util/hash.js';
import { fsyncDir, tempPathFor } from '../../util/fs-atomic.js';
import { v1Path } from '../layout.js';

/** A blob `mirrorBlob()` placed in a registry: its pin and its URL relative to v1/. */
export interface MirroredBlob {
  /** The blob's SHA-256 (hex), its address. */
  sha256: string;
  /** Its size in bytes. */
  size: number;
  /** The blob's path relative to the registry's v1/ folder: `blobs/sha256/<hex>`. */
  url: string;
  /** Absolute path of the blob in the registry. */
  path: string;
  /** False when a verified copy was already there. */
  created: boolean;
}

/** The content address of a mirrored resource or shard, relative to v1/ (no extension, unlike archives). */
export function resourceBlobRelativePath(sha256: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new AdcapError('E_USAGE', `"${sha256}" is not a lowercase hex SHA-256.`);
  return `blobs/sha256/${sha256}`;
}

/**
 * Copies `file` into `<registryDir>/v1/blobs/sha256/<sha256 of file>`. When `expected` is given the
 * file must have exactly that SHA-256 and size (the pin from a manifest or shard map), otherwise
 * E_HASH: a registry must never mirror bytes other than the ones capabilities pin.
 */
export async function mirrorBlob(registryDir: string, file: string, expected?: { sha256: string; size: number }): Promise<MirroredBlob> {
  const source = await hashOrFail(file);
  if (expected !== undefined && (expected.sha256 !== source.sha256 || expected.size !== source.size)) {
    throw new AdcapError(
      'E_HASH',
      `${file} has SHA-256 ${source.sha256} and ${source.size} bytes, but the pin says ` +
        `${expected.sha256} and ${expected.size} bytes; rebuild the resource or update its pin.`,
      { details: { file, expected, actual: source } },
    );
  }
  const url = resourceBlobRelativePath(source.sha256);
  const target = v1Path(registryDir, url);
  if (await holds(target, source)) return { ...source, url, path: target, created: false };
  const temp = tempPathFor(target);
  try {
    await mkdir(dirname(target), { recursive: true });
    await copyFile(file, temp);
    // Verify what was copied, not what was read a moment ago: the source may have changed since.
    const copied = await hashFile(temp);
    if (copied.sha256 !== source.sha256 || copied.size !== source.size) {
      throw new AdcapError('E_HASH', `${file} changed while it was being mirrored into the registry; run the build again.`);
    }
    await rename(temp, target);
    await fsyncDir(dirname(target));
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    if (error instanceof AdcapError) throw error;
    throw asAdcapError(error, `Cannot mirror ${file} into ${registryDir}`);
  }
  return { ...source, url, path: target, created: true };
}

async function hashOrFail(file: string): Promise<{ sha256: string; size: number }> {
  try {
    if (!(await stat(file)).isFile())
      throw new AdcapError('E_USAGE', `${file} is not a regular file; mirror only resource and shard files.`);
    return await hashFile(file);
  } catch (error) {
    if (error instanceof AdcapError) throw error;
    throw asAdcapError(error, `Cannot read ${file}`);
  }
}

/** True when `target` exists and holds exactly these bytes (a damaged copy is replaced). */
async function holds(target: string, want: { sha256: string; size: number }): Promise<boolean> {
  try {
    const info = await stat(target);
    if (!info.isFile() || info.size !== want.size) return false;
    return (await hashFile(target)).sha256 === want.sha256;
  } catch {
    return false;
  }
}
