/**
 * What is on disk for a recorded link: whether the folder or link at its path is the one
 * Arcotheon made, which installed version it points at, and so its state (ok, stale, dangling,
 * missing, replaced, suspended).
 */
import { lstat, readFile, readlink, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Manifest } from '../../format/manifest-types.js';
import { readState } from '../state.js';
import { lastSegment, LINK_MARKER } from './link-writer.js';
import { readLinks, type LinkRecord, type LinkState, type LinkStatus, type LinkStore } from './records.js';

/** The skill folder of `skill` in the installed `version` of `id`, or null when that version has no such skill. */
export function skillTarget(arc: LinkStore, id: string, version: string, manifest: Manifest, skill: string): string | null {
  const entry = (manifest.skills ?? []).find((s) => lastSegment(s.path) === skill);
  return entry === undefined ? null : join(arc.home.versionDir(id, version), ...entry.path.split('/'));
}

function inside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/** Whether what is at `record.path` is the link Arcotheon made, and where it points. */
export async function onDisk(
  arc: LinkStore,
  record: LinkRecord,
): Promise<{ ours: false; present: boolean } | { ours: true; target: string | null; version: string | null }> {
  let info;
  try {
    info = await lstat(record.path);
  } catch {
    return { ours: false, present: false };
  }
  if (info.isSymbolicLink()) {
    const raw = await readlink(record.path);
    const target = resolve(dirname(record.path), raw);
    if (!inside(arc.home.packageDir(record.id), target)) return { ours: false, present: true };
    const version = relative(arc.home.packageDir(record.id), target).split(sep)[0] ?? null;
    const exists = await stat(target).then(
      () => true,
      () => false,
    );
    return { ours: true, target: exists ? target : null, version };
  }
  if (info.isDirectory()) {
    const marker = await readFile(join(record.path, LINK_MARKER), 'utf8').then(
      (text) => JSON.parse(text) as { id?: unknown; skill?: unknown; version?: unknown },
      () => null,
    );
    if (marker === null || marker.id !== record.id || marker.skill !== record.skill) return { ours: false, present: true };
    return { ours: true, target: record.path, version: typeof marker.version === 'string' ? marker.version : null };
  }
  return { ours: false, present: true };
}

async function statusOf(arc: LinkStore, record: LinkRecord, active: string | null): Promise<LinkState> {
  if (record.suspended === true) return active === null ? 'dangling' : 'suspended';
  const disk = await onDisk(arc, record);
  if (!disk.ours) return disk.present ? 'replaced' : 'missing';
  if (disk.target === null || active === null) return 'dangling';
  return disk.version === active ? 'ok' : 'stale';
}

export async function activeVersion(arc: LinkStore, id: string): Promise<string | null> {
  const state = await readState(arc.home, id).catch(() => null);
  return state?.active ?? null;
}

export async function linkStatuses(arc: LinkStore): Promise<LinkStatus[]> {
  const out: LinkStatus[] = [];
  const actives = new Map<string, string | null>();
  for (const record of await readLinks(arc)) {
    if (!actives.has(record.id)) actives.set(record.id, await activeVersion(arc, record.id));
    out.push({ ...record, state: await statusOf(arc, record, actives.get(record.id) ?? null) });
  }
  return out;
}
