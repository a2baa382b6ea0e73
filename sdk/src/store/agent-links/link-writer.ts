/**
 * Making and removing the links in an agent's skills folder: a symbolic link (a junction
 * on Windows) put in place by an atomic rename, or a copy of the skill folder with a marker file
 * where links cannot be made. The callers decide what may be replaced; this module only writes.
 */
import { cp, lstat, mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { AdcapError, asAdcapError } from '../../errors.js';
import { writeFileAtomic } from '../../util/fs-atomic.js';
import { removeTree } from '../../util/fs-tree.js';
import type { LinkRecord } from './records.js';

/** The marker inside a copied skill folder: only a folder carrying it for the same capability is Arcotheon's. */
export const LINK_MARKER = '.arcotheon-link.json';

export async function removeOurs(record: LinkRecord): Promise<void> {
  const info = await lstat(record.path).catch(() => null);
  if (info === null) return;
  if (info.isSymbolicLink()) await rm(record.path, { force: true });
  else await removeTree(record.path);
}

/**
 * Puts a link to `target` at `path` (replacing Arcotheon's own link there, never anything else:
 * the caller checked). A symbolic link is made beside it and renamed over it, so an agent never
 * sees the folder missing; where symbolic links are refused (Windows without developer mode,
 * some file systems), the skill folder is copied with a marker file.
 */
export async function placeLink(
  path: string,
  target: string,
  meta: { id: string; skill: string; version: string; as?: string },
  mode: 'auto' | 'copy',
): Promise<'symlink' | 'copy'> {
  const { as, ...marker } = meta;
  const renamed = as !== undefined && as !== meta.skill;
  await mkdir(dirname(path), { recursive: true });
  // basename, not lastSegment: `path` is a file-system path (backslashes on Windows), not a manifest path.
  const temp = join(dirname(path), `.${basename(path)}.arcotheon-${process.pid}-${Date.now().toString(36)}`);
  if (mode === 'auto' && !renamed) {
    try {
      await symlink(target, temp, process.platform === 'win32' ? 'junction' : 'dir');
      const existing = await lstat(path).catch(() => null);
      if (existing !== null && !existing.isSymbolicLink()) await removeTree(path);
      await rename(temp, path);
      return 'symlink';
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EPERM' && code !== 'EACCES' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EINVAL')
        throw asAdcapError(error, `Cannot link ${path}`);
    }
  }
  try {
    await cp(target, temp, { recursive: true, dereference: true });
    if (renamed) await renameSkillCopy(join(temp, 'SKILL.md'), meta.skill, as);
    await writeFileAtomic(
      join(temp, LINK_MARKER),
      `${JSON.stringify({ ...marker, note: 'Made by Arcotheon; "adcap unlink" removes it.' }, null, 2)}\n`,
    );
    const existing = await lstat(path).catch(() => null);
    if (existing !== null) {
      if (existing.isSymbolicLink()) await rm(path, { force: true });
      else await removeTree(path);
    }
    await rename(temp, path);
    return 'copy';
  } catch (error) {
    await removeTree(temp).catch(() => undefined);
    throw asAdcapError(error, `Cannot copy the skill into ${path}`);
  }
}

/**
 * spec §3.1: a skill's name is its folder's name, so a copy linked under another folder name
 * carries that name in its SKILL.md front matter (the `name:` line, the only line changed).
 */
async function renameSkillCopy(skillMd: string, from: string, to: string): Promise<void> {
  const text = await readFile(skillMd, 'utf8');
  const lines = text.split('\n');
  const end = lines.findIndex((line, index) => index > 0 && line.trimEnd() === '---');
  const at = lines.findIndex((line, index) => index > 0 && index < end && /^name:\s*(['"]?)[a-z0-9-]+\1\s*$/.test(line.trimEnd()));
  if (lines[0]?.replace(/^\ufeff/, '').trimEnd() !== '---' || end < 0 || at < 0) {
    throw new AdcapError(
      'E_USAGE',
      `--as ${from}=${to}: the SKILL.md of ${from} does not have a one-line "name: ${from}" in its front matter, ` +
        'so its copy cannot carry the new name (an agent reads the name, not the folder); link it under its own name.',
    );
  }
  lines[at] = `name: ${to}`;
  await writeFile(skillMd, lines.join('\n'));
}

/** The last segment of a '/'-separated path: a skill's name from its path in the manifest. */
export function lastSegment(path: string): string {
  return (
    path
      .split('/')
      .filter((s) => s !== '')
      .pop() ?? path
  );
}
