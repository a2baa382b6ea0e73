/**
 * The folders Arcotheon made to put a link in (docs/skills.md: `~/.cursor/skills`, `~/.gemini`, ...),
 * recorded in home/link-folders.json when made, and removed again once they are empty and no
 * link is left in them. A folder that existed before the first link (the user's) is never recorded,
 * so never removed; a recorded folder the user has put something into is not empty, so it stays.
 */
import { readFile, rmdir, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { asAdcapError } from '../../errors.js';
import { parseStrictJson } from '../../format/strict-json.js';
import { writeJsonAtomic } from '../../util/fs-atomic.js';
import type { LinkStore } from './records.js';

function file(arc: LinkStore): string {
  return join(arc.home.root, 'link-folders.json');
}

async function readMade(arc: LinkStore): Promise<string[]> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file(arc));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw asAdcapError(error, `Cannot read ${file(arc)}`);
  }
  const value = parseStrictJson(bytes, file(arc)) as { made?: unknown };
  // A damaged record only means some empty folders stay: never a reason to fail a link.
  return Array.isArray(value?.made) ? value.made.filter((p): p is string => typeof p === 'string' && isAbsolute(p)) : [];
}

/** `dir` and each of its ancestors that does not exist yet, outermost first. */
export async function missingFolders(dir: string): Promise<string[]> {
  const out: string[] = [];
  let current = dir;
  for (;;) {
    const exists = await stat(current).then(
      () => true,
      () => false,
    );
    if (exists) break;
    out.unshift(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return out;
}

export async function recordMadeFolders(arc: LinkStore, folders: readonly string[]): Promise<void> {
  if (folders.length === 0) return;
  const made = await readMade(arc);
  const next = [...new Set([...made, ...folders])].sort();
  await writeJsonAtomic(file(arc), { made: next });
}

/** Removes every recorded folder that is empty now (deepest first); forgets those that are gone. */
export async function pruneMadeFolders(arc: LinkStore): Promise<string[]> {
  const made = await readMade(arc);
  if (made.length === 0) return [];
  const removed: string[] = [];
  const keep: string[] = [];
  // Deepest first, so a parent is empty by the time it is tried.
  const ordered = [...made].sort((a, b) => b.split(/[\\/]/).length - a.split(/[\\/]/).length);
  for (const dir of ordered) {
    try {
      await rmdir(dir); // fails on a folder that is not empty: the user's files, or another link
      removed.push(dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') keep.push(dir);
    }
  }
  await writeJsonAtomic(file(arc), { made: keep.sort() });
  return removed.filter((d) => !keep.some((k) => relative(d, k) === ''));
}
