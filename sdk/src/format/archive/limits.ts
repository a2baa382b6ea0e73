import { AdcapError } from '../../errors.js';

/**
 * Reader limits (spec §2, DESIGN §4): enforced before and while decompressing, so a hostile
 * archive is refused after at most `maxExpandedBytes` of inflated output, whatever it declares.
 */
export interface ArchiveLimits {
  /** Entries in the archive, capability.json and SIGNATURE.json included. */
  maxEntries: number;
  /** Inflated bytes of the whole tar stream (headers, data, padding and trailing zeros). */
  maxExpandedBytes: number;
  /** Size of capability.json (and of SIGNATURE.json), which are held in memory to be parsed. */
  maxManifestBytes: number;
}

/** The reference limits of spec §2, plus a manifest cap far above any real manifest. */
export const DEFAULT_ARCHIVE_LIMITS: Readonly<ArchiveLimits> = Object.freeze({
  maxEntries: 20_000,
  maxExpandedBytes: 512 * 1024 * 1024,
  maxManifestBytes: 16 * 1024 * 1024,
});

export function resolveLimits(limits: Partial<ArchiveLimits> | undefined): ArchiveLimits {
  const resolved = { ...DEFAULT_ARCHIVE_LIMITS, ...limits };
  for (const [key, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new AdcapError('E_USAGE', `The archive limit ${key} must be a non-negative integer, not ${String(value)}.`);
    }
  }
  return resolved;
}
