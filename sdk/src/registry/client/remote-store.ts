/**
 * What a client keeps per remote under home/remotes/<name>/ (DESIGN §6):
 *   catalog.json       the last verified catalogue, byte for byte as downloaded (offline use)
 *   state.json         { sequence, payloadSha256, checkedAt }: the rollback floor (DESIGN §10) and
 *                      when the remote was last checked; kept apart from catalog.json so losing or
 *                      damaging the catalogue never lowers the floor
 *   docs/<sha256>.json package documents, content-addressed by their pin, re-hashed on every read
 *   verified.json      what the last full verification of catalog.json found (its SHA-256, the
 *                      digest of the root keys, signers, payload digest): a later load of the same
 *                      bytes under the same keys skips the signature check (verifyCatalogue's
 *                      verifiedBefore); a cache, so a missing or damaged one only costs a full check
 *   v2-verified.json   the same record for v2/catalog.json, the top level of a remote read as v2
 *   checked.json       the stat stamp catalog.json had when it was last hashed and found to be the
 *                      bytes state.json names (search-index/verified-files.ts): a read whose file
 *                      still has that stamp is not hashed again; a cache like verified.json
 *   attempt.json       the last attempt to fetch and verify the catalogue, by any process on this
 *                      home: when, and its error when it failed (a status, never trust: a failed
 *                      attempt leaves the stored catalogue and the floor as they were)
 * Written catalogue first, state second: a crash in between leaves a catalogue newer than the
 * floor, which the next load accepts.
 */
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { asAdcapError } from '../../errors.js';
import { parseStrictJson } from '../../format/strict-json.js';
import { writeFileAtomic, writeJsonAtomic } from '../../util/fs-atomic.js';
import { hashFile, sha256Hex, SHA256_HEX } from '../../util/hash.js';
import { sameStamp, stampOf, VerifiedFiles } from '../search-index/verified-files.js';
import type { CatalogueVerificationRecord } from '../catalogue.js';

export interface RemoteState {
  sequence: number;
  payloadSha256: string;
  /** SHA-256 of catalog.json's bytes (lets an unchanged catalogue skip the canonical digest). */
  catalogueSha256?: string;
  /** When the remote was last fetched and verified (ISO), successful or unchanged. */
  checkedAt: string;
  /** 'v2' once the remote was read through its v2/ layout (snapshot-v2.ts); absent for v1. */
  layout?: 'v2';
}

/** The last attempt to fetch and verify a remote's catalogue: when, and why it failed. */
export interface RemoteAttempt {
  /** When the attempt ended (ISO 8601, UTC). */
  at: string;
  /** True when the catalogue was fetched and verified; false when the attempt failed (see `error`). */
  ok: boolean;
  /** The failure: its code, the SDK's sentence and its plain details (for the other surfaces' wording). */
  error?: { code: string; message: string; details?: Record<string, unknown> };
}

export class RemoteStore {
  constructor(readonly dir: string) {}

  get cataloguePath(): string {
    return join(this.dir, 'catalog.json');
  }

  get statePath(): string {
    return join(this.dir, 'state.json');
  }

  docPath(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
    return join(this.dir, 'docs', `${sha256}.json`);
  }

  async readState(): Promise<RemoteState | null> {
    const bytes = await readOptional(this.statePath);
    if (bytes === null) return null;
    try {
      const value = parseStrictJson(bytes, this.statePath) as Partial<RemoteState>;
      if (typeof value.sequence === 'number' && typeof value.payloadSha256 === 'string' && typeof value.checkedAt === 'string') {
        const state: RemoteState = { sequence: value.sequence, payloadSha256: value.payloadSha256, checkedAt: value.checkedAt };
        if (typeof value.catalogueSha256 === 'string') state.catalogueSha256 = value.catalogueSha256;
        if (value.layout === 'v2') state.layout = 'v2';
        return state;
      }
    } catch {
      // fall through
    }
    // A damaged state file must not silently drop the floor; the catalogue beside it is the
    // next best record of what was accepted, so the caller falls back to it.
    return null;
  }

  async readCatalogue(): Promise<Buffer | null> {
    return readOptional(this.cataloguePath);
  }

  /**
   * Whether catalog.json still holds the bytes whose SHA-256 is `sha256`. A file whose stat stamp
   * (device, inode, size, modification and change times) is the one it had when it was last hashed
   * and found to be those bytes (checked.json) is not hashed again; anything else is hashed in
   * full, and the stamp recorded when it matches (measured: 16 ms of every `adcap search` over a
   * 9 MiB catalogue).
   */
  async catalogueHolds(sha256: string): Promise<boolean> {
    const checked = new VerifiedFiles(this.dir, 'checked.json');
    const name = `catalog.json@${sha256}`;
    try {
      const before = stampOf(await stat(this.cataloguePath, { bigint: true }));
      if (await checked.has(name, before)) return true;
      const hashed = await hashFile(this.cataloguePath);
      if (hashed.sha256 !== sha256) return false;
      const after = stampOf(await stat(this.cataloguePath, { bigint: true }));
      // Changed while hashed: what was hashed may not be the file now (the caller takes the full path).
      if (!sameStamp(before, after)) return false;
      await checked.add(name, after);
      await checked.retain(new Set([name]));
      await checked.save();
      return true;
    } catch {
      return false;
    }
  }

  get verificationPath(): string {
    return join(this.dir, 'verified.json');
  }

  get topLevelVerificationPath(): string {
    return join(this.dir, 'v2-verified.json');
  }

  /**
   * The record of the last full verification (of catalog.json; of the v2 top level with
   * `topLevelVerificationPath`), or null when there is none or it is damaged.
   */
  async readVerification(path: string = this.verificationPath): Promise<CatalogueVerificationRecord | null> {
    const bytes = await readOptional(path).catch(() => null);
    if (bytes === null) return null;
    try {
      const value = JSON.parse(bytes.toString('utf8')) as Partial<CatalogueVerificationRecord> | null;
      const hex = (field: unknown): field is string => typeof field === 'string' && SHA256_HEX.test(field);
      if (
        value !== null &&
        hex(value.catalogueSha256) &&
        hex(value.rootKeys) &&
        hex(value.payloadSha256) &&
        Array.isArray(value.signedBy) &&
        value.signedBy.length > 0 &&
        value.signedBy.every(hex)
      ) {
        const active = value.activePublishers;
        return {
          catalogueSha256: value.catalogueSha256,
          rootKeys: value.rootKeys,
          signedBy: value.signedBy,
          payloadSha256: value.payloadSha256,
          // A list of anything but strings is no list: the listing that needs it takes the full path.
          ...(Array.isArray(active) && active.every((id) => typeof id === 'string') ? { activePublishers: active } : {}),
        };
      }
    } catch {
      // fall through: a damaged record is no record
    }
    return null;
  }

  /** A cache: a failure to write it only costs the next load a full check. */
  async saveVerification(record: CatalogueVerificationRecord, path: string = this.verificationPath): Promise<void> {
    await writeJsonAtomic(path, record).catch(() => undefined);
  }

  async save(catalogue: Uint8Array | null, state: RemoteState): Promise<void> {
    try {
      if (catalogue !== null) await writeFileAtomic(this.cataloguePath, catalogue);
      await writeJsonAtomic(this.statePath, state);
    } catch (error) {
      throw asAdcapError(error, `Cannot store the catalogue in ${this.dir}`);
    }
  }

  get attemptPath(): string {
    return join(this.dir, 'attempt.json');
  }

  /** The last attempt recorded, or null when there is none (or its record is damaged). */
  async readAttempt(): Promise<RemoteAttempt | null> {
    const bytes = await readOptional(this.attemptPath).catch(() => null);
    if (bytes === null) return null;
    try {
      const value = JSON.parse(bytes.toString('utf8')) as Partial<RemoteAttempt> | null;
      if (value === null || typeof value.at !== 'string' || typeof value.ok !== 'boolean') return null;
      const attempt: RemoteAttempt = { at: value.at, ok: value.ok };
      const error = value.error;
      if (!value.ok && typeof error === 'object' && error !== null && typeof error.code === 'string' && typeof error.message === 'string') {
        attempt.error = { code: error.code, message: error.message };
        if (typeof error.details === 'object' && error.details !== null) attempt.error.details = error.details;
      }
      return attempt;
    } catch {
      return null;
    }
  }

  /** A status record: a failure to write it must not fail the update it describes. */
  async saveAttempt(attempt: RemoteAttempt): Promise<void> {
    await writeJsonAtomic(this.attemptPath, attempt).catch(() => undefined);
  }

  /** A cached package document whose bytes still hash to the pin, or null. */
  async readDocument(sha256: string): Promise<Buffer | null> {
    const bytes = await readOptional(this.docPath(sha256));
    return bytes !== null && sha256Hex(bytes) === sha256 ? bytes : null;
  }

  async writeDocument(sha256: string, bytes: Uint8Array): Promise<void> {
    await writeFileAtomic(this.docPath(sha256), bytes).catch(() => undefined); // a cache: failure only costs a refetch
  }

  /** Drops cached documents the current catalogue no longer pins. */
  async pruneDocuments(keep: ReadonlySet<string>): Promise<void> {
    let names: string[];
    try {
      names = await readdir(join(this.dir, 'docs'));
    } catch {
      return;
    }
    for (const name of names) {
      const sha = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
      if (!keep.has(sha)) await rm(join(this.dir, 'docs', name), { force: true }).catch(() => undefined);
    }
  }
}

async function readOptional(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw asAdcapError(error, `Cannot read ${path}`);
  }
}
