/**
 * Keeping the links with the active version: after an install, update, rollback or
 * uninstall, and for doctor --fix.
 */
import { lstat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { lastSegment, placeLink, removeOurs } from './link-writer.js';
import { activeVersion, onDisk, skillTarget } from './on-disk.js';
import { pruneMadeFolders } from './made-folders.js';
import { readLinks, writeLinks, type LinkRecord, type LinkStore } from './records.js';

/**
 * Moves the links of `ids` to their active versions after an install, update or rollback, and
 * removes those of uninstalled capabilities (the caller holds the home lock). Skills that a new
 * version added are linked too where their place is free; skills it dropped lose their link.
 * Links someone else replaced are forgotten, never touched. Returns what it could not do, for
 * doctor to find again; it never throws, because the operation before it has already happened.
 */
export async function syncLinks(arc: LinkStore, ids: readonly string[]): Promise<string[]> {
  const problems: string[] = [];
  let links: LinkRecord[];
  try {
    links = await readLinks(arc);
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
  const touched = new Set(ids);
  if (!links.some((l) => touched.has(l.id))) return [];
  const next = links.filter((l) => !touched.has(l.id));
  const now = new Date().toISOString();
  for (const id of touched) {
    // A disabled capability's links stay off the agents' folders; they are put back by
    // resumeLinks against whatever version is active then, and forgotten when it is uninstalled.
    const suspended = links.filter((l) => l.id === id && l.suspended === true);
    if (suspended.length > 0 && (await activeVersion(arc, id)) !== null) next.push(...suspended);
    const mine = links.filter((l) => l.id === id && l.suspended !== true);
    if (mine.length === 0) continue;
    const active = await activeVersion(arc, id);
    const manifest = active === null ? null : await arc.readInstalledManifest(id, active).catch(() => null);
    for (const record of mine) {
      try {
        const disk = await onDisk(arc, record);
        if (!disk.ours) continue; // replaced or removed by someone else: forget it
        const target = active === null || manifest === null ? null : skillTarget(arc, id, active, manifest, record.skill);
        if (target === null) {
          await removeOurs(record);
          continue;
        }
        if (disk.version === active && disk.target !== null) {
          next.push(record);
          continue;
        }
        const mode = await placeLink(
          record.path,
          target,
          { id, skill: record.skill, as: record.as, version: active as string },
          record.mode === 'copy' ? 'copy' : 'auto',
        );
        next.push({ ...record, mode, version: active as string, linkedAt: now });
      } catch (error) {
        problems.push(`${record.path}: ${error instanceof Error ? error.message : String(error)}`);
        next.push(record);
      }
    }
    // Skills the active version added (not in the versions the links were made for), into every
    // place this capability is linked; a skill left out with --skip stays out.
    if (active === null || manifest === null) continue;
    const known = new Set<string>();
    for (const version of new Set(mine.map((l) => l.version))) {
      const old = await arc.readInstalledManifest(id, version).catch(() => null);
      if (old === null) known.add('*');
      for (const s of old?.skills ?? []) known.add(lastSegment(s.path));
    }
    if (known.has('*')) continue;
    const places = new Map<string, LinkRecord>();
    for (const record of mine) places.set(dirname(record.path), record);
    for (const [dir, sample] of places) {
      for (const skill of (manifest.skills ?? []).map((s) => lastSegment(s.path)).filter((name) => !known.has(name))) {
        if (next.some((l) => l.id === id && l.skill === skill && dirname(l.path) === dir)) continue;
        if (mine.some((l) => l.skill === skill && dirname(l.path) === dir)) continue; // dropped on purpose above
        const path = join(dir, skill);
        if (
          await lstat(path).then(
            () => true,
            () => false,
          )
        ) {
          problems.push(
            `${id}@${active} brings the skill ${skill}, but ${path} is taken; ` +
              `link it with "adcap link ${id} --agent ${sample.agent} --as ${skill}=<other-name>"`,
          );
          continue;
        }
        try {
          const target = skillTarget(arc, id, active, manifest, skill) as string;
          const mode = await placeLink(path, target, { id, skill, version: active }, sample.mode === 'copy' ? 'copy' : 'auto');
          const { project } = sample;
          next.push({
            id,
            skill,
            as: skill,
            agent: sample.agent,
            scope: sample.scope,
            ...(project === undefined ? {} : { project }),
            path,
            mode,
            version: active,
            linkedAt: now,
          });
        } catch (error) {
          problems.push(`${path}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }
  }
  try {
    await writeLinks(arc, next);
    // docs/skills.md: folders Arcotheon made for links it just removed go too, when nothing else is in them.
    await pruneMadeFolders(arc);
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  }
  return problems;
}
