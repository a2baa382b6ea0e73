/**
 * Version directories extracted before an operation's journal is written (an
 * install from a registry downloads, verifies and extracts in one read of the archive, and the
 * switch only renames the result into place).
 *
 * A prepared directory sits beside its final place (`packages/<id>/<version>.prepared-<random>`),
 * so the rename stays on one file system. Whatever the operation does not take is removed by
 * `discard` (the caller's finally); a crash leaves at most such a directory, which the next
 * operation on that capability prunes (transaction.ts, pruneUnreferenced) and doctor reports as a
 * leftover.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rmdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { asAdcapError } from '../errors.js';
import { fsyncDir } from '../util/fs-atomic.js';
import { removeTree } from '../util/fs-tree.js';
import { exists } from './transaction.js';

export class PreparedVersions {
  private readonly dirs = new Map<string, string>();
  private readonly madeParents = new Set<string>();

  /**
   * A fresh path to extract `target` into, or undefined when `target` is already on disk (a version
   * kept from an earlier install is reused, not extracted again: runOperation skips it).
   */
  async dirFor(target: string): Promise<string | undefined> {
    if (await exists(target)) return undefined;
    const parent = dirname(target);
    const first = await mkdir(parent, { recursive: true });
    // The directories this made (the first one and those below it down to the parent), deepest first at discard.
    for (let dir = parent; first !== undefined && dir.length >= first.length; dir = dirname(dir)) this.madeParents.add(dir);
    const dir = `${target}.prepared-${randomBytes(6).toString('hex')}`;
    this.dirs.set(target, dir);
    return dir;
  }

  has(target: string): boolean {
    return this.dirs.has(target);
  }

  /** The extract step of a prepared version: one rename into place. */
  async moveIn(target: string): Promise<void> {
    const dir = this.dirs.get(target);
    if (dir === undefined) throw new Error(`no prepared directory for ${target}`);
    try {
      await rename(dir, target);
    } catch (error) {
      throw asAdcapError(error, `Cannot move the verified package into ${target}`);
    }
    this.dirs.delete(target);
    await fsyncDir(dirname(target));
  }

  /** Removes what was prepared and not moved in, and the directories made for it that stayed empty. */
  async discard(): Promise<void> {
    for (const dir of this.dirs.values()) await removeTree(dir).catch(() => undefined);
    this.dirs.clear();
    for (const parent of [...this.madeParents].sort((x, y) => y.length - x.length)) {
      if ((await readdir(parent).catch(() => null))?.length === 0) await rmdir(parent).catch(() => undefined);
    }
    this.madeParents.clear();
  }
}
