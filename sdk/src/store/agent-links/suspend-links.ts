/**
 * Disable and enable: a disabled capability's links are taken off the agents' folders
 * and kept in the record, marked suspended, to be put back when it is enabled again.
 */
import { lstat } from 'node:fs/promises';
import { placeLink, removeOurs } from './link-writer.js';
import { activeVersion, onDisk, skillTarget } from './on-disk.js';
import { readLinks, writeLinks, type LinkRecord, type LinkStore } from './records.js';

/**
 * Takes the links of `id` off the agents' folders while it is disabled (the caller holds the home
 * lock). Only what Arcotheon made is removed; the records stay, marked suspended, so enabling puts
 * the same links back. Returns what it could not do; never throws (the disable has happened).
 */
export async function suspendLinks(arc: LinkStore, id: string): Promise<string[]> {
  const problems: string[] = [];
  try {
    const links = await readLinks(arc);
    if (!links.some((l) => l.id === id && l.suspended !== true)) return [];
    const next: LinkRecord[] = [];
    for (const record of links) {
      if (record.id !== id || record.suspended === true) {
        next.push(record);
        continue;
      }
      const disk = await onDisk(arc, record);
      if (!disk.ours) continue; // replaced or removed by someone else: forget it, touch nothing
      await removeOurs(record);
      next.push({ ...record, suspended: true });
    }
    await writeLinks(arc, next);
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  }
  return problems;
}

/**
 * Puts the suspended links of `id` back when it is enabled, pointing at its active version. A
 * place someone else took in the meantime is left alone and reported (the link is forgotten).
 */
export async function resumeLinks(arc: LinkStore, id: string): Promise<string[]> {
  const problems: string[] = [];
  try {
    const links = await readLinks(arc);
    if (!links.some((l) => l.id === id && l.suspended === true)) return [];
    const active = await activeVersion(arc, id);
    const manifest = active === null ? null : await arc.readInstalledManifest(id, active).catch(() => null);
    const now = new Date().toISOString();
    const next: LinkRecord[] = [];
    for (const record of links) {
      if (record.id !== id || record.suspended !== true) {
        next.push(record);
        continue;
      }
      const { suspended: _suspended, ...plain } = record;
      const target = active === null || manifest === null ? null : skillTarget(arc, id, active, manifest, record.skill);
      if (target === null) continue; // the active version no longer has this skill
      if (
        await lstat(record.path).then(
          () => true,
          () => false,
        )
      ) {
        problems.push(
          `${record.path} is taken by something Arcotheon did not make, so ${id}'s skill ${record.skill} was not linked again; ` +
            `link it with "adcap link ${id} --agent ${record.agent} --as ${record.skill}=<other-name>"`,
        );
        continue;
      }
      try {
        const mode = await placeLink(
          record.path,
          target,
          { id, skill: record.skill, as: record.as, version: active as string },
          record.mode === 'copy' ? 'copy' : 'auto',
        );
        next.push({ ...plain, mode, version: active as string, linkedAt: now });
      } catch (error) {
        problems.push(`${record.path}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    await writeLinks(arc, next);
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  }
  return problems;
}
