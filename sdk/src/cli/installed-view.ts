import { basename, join } from 'node:path';
import type { Manifest } from '../format/manifest-types.js';
import { acceptedFields, type AcceptedField } from '../run/schemas.js';
import type { Arcotheon, InstalledCapability } from '../store/arcotheon.js';

/**
 * What `adcap show` and `adcap list --json` say about an installed capability, whatever its source
 * (a registry or a sideloaded file): where its skills are (host contract "Skills": each skill path
 * joined to the installed directory is a standard Agent Skills directory) and which tools it has,
 * with the input fields each accepts.
 */

export interface SkillView {
  /** The skill's name: its folder's name (spec §3.1: the name matches the folder). */
  name: string;
  /** The path inside the package, as the manifest gives it. */
  path: string;
  /** The absolute directory to register with an agent. */
  dir: string;
}

export interface ToolView {
  name: string;
  description: string;
  runtime: string;
  permissions: string[];
  /** The top-level input fields, or null when the input schema does not list them. */
  input: AcceptedField[] | null;
}

export interface InstalledView {
  version: string;
  status: InstalledCapability['status'];
  explicit: boolean;
  grants: string[];
  source: InstalledCapability['source'];
  dir: string;
  name: string;
  summary: string;
  skills: SkillView[];
  tools: ToolView[];
  workflows: string[];
}

export function skillViews(manifest: Manifest, dir: string): SkillView[] {
  return (manifest.skills ?? []).map((s) => ({ name: basename(s.path), path: s.path, dir: join(dir, ...s.path.split('/')) }));
}

function toolViews(manifest: Manifest): ToolView[] {
  return (manifest.tools ?? []).map((t) => ({
    name: t.name,
    description: t.description,
    runtime: t.runtime.type,
    permissions: t.permissions ?? [],
    input: acceptedFields(t.inputSchema),
  }));
}

/** The installed view of `id`, or null when it is not installed. */
export async function installedView(arc: Arcotheon, id: string): Promise<InstalledView | null> {
  const entry = (await arc.list()).find((c) => c.id === id);
  if (entry === undefined) return null;
  const dir = await arc.installedDir(id);
  const manifest = await arc.installedManifest(id);
  return {
    version: entry.version,
    status: entry.status,
    explicit: entry.explicit,
    grants: entry.grants,
    source: entry.source,
    dir,
    name: manifest.name,
    summary: manifest.summary,
    skills: skillViews(manifest, dir),
    tools: toolViews(manifest),
    workflows: (manifest.workflows ?? []).map((w) => w.path),
  };
}
