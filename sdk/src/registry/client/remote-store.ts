/**
 * What a client keeps per remote under home/remotes/<name>/ (DESIGN §6):
 *   catalog.json       the last verified catalogue, byte for byte as downloaded (offline use)
 *   state.json         { sequence, payloadSha256, checkedAt }: the rollback floor (DESIGN §10) and
 *                      when the remote was last checked; kept apart from catalog.json so losing or
 *                      damaging the catalogue never lowers the floor
 *   docs/<sha256>.json package documents, content-addressed by their pin, re-hashed on every read
 * Written catalogue first, state second: a crash in between leaves a catalogue newer than the
 * floor, which the next load accepts.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { asAdcapError } from '../../errors.js';
import { parseStrictJson } from '../../format/strict-json.js';
import { writeFileAtomic, writeJsonAtomic } from '../../util/fs-atomic.js';
import { sha256Hex, SHA256_HEX } from '../../util/hash.js';

export interface RemoteState {
  sequence: number;
  payloadSha256: string;
  /** SHA-256 of catalog.json's bytes (lets an unchanged catalogue skip the canonical digest). */
  catalogueSha256?: string;
  /** When the remote was last fetched and verified (ISO), successful or unchanged. */
  checkedAt: string;
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

  async save(catalogue: Uint8Array | null, state: RemoteState): Promise<void> {
    try {
      if (catalogue !== null) await writeFileAtomic(this.cataloguePath, catalogue);
      await writeJsonAtomic(this.statePath, state);
    } catch (error) {
      throw asAdcapError(error, `Cannot store the catalogue in ${this.dir}`);
    }
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
