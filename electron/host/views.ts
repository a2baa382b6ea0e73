/**
 * SDK values turned into the plain views of the host API contract (electron/common/types.ts):
 * permissions with their plain sentence and risk from the permission table (never from the
 * publisher), and what a package contains, read from verified files on disk.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import {
  describePermission,
  grantCovers,
  grantString,
  isToolStep,
  riskLevel,
  validateSkillDocument,
  type Manifest,
  type Permission,
  type Plan,
} from '@arcotheon/sdk';
import { capabilityRisk, validateInstalledWorkflows } from '@arcotheon/sdk/internal';
import type {
  PlanData,
  PackageContentsView,
  PermissionChange,
  PermissionView,
  ProblemSeverity,
  SkillView,
  WorkflowView,
} from '../common/types.js';

export function permissionView(permission: Permission, granted?: readonly string[]): PermissionView {
  const grant = grantString(permission);
  const view: PermissionView = {
    id: permission.id,
    grant,
    text: describePermission(permission),
    risk: riskLevel(permission),
    reason: permission.reason,
  };
  if (permission.scope !== undefined) view.scope = permission.scope;
  if (granted !== undefined) view.granted = granted.some((g) => grantCovers(g, grant) || g === grant);
  return view;
}

/**
 * The SDK's plan with each new permission's risk level from the permission table, and the overall
 * risk of everything it installs (the dialog's header: what was asked for and what it pulls in).
 */
export function planView(plan: Plan): PlanData {
  const risk = capabilityRisk(
    plan.items.map((item) => ({
      id: item.id,
      name: item.name,
      dependency: !item.explicit,
      permissions: item.permissions,
      ...(item.skillPrograms === undefined ? {} : { skillPrograms: item.skillPrograms }),
    })),
  );
  return { ...plan, newPermissions: plan.newPermissions.map((p) => ({ ...p, risk: riskLevel(p.permission) })), risk };
}

/**
 * The permission difference between two versions (spec §6: an update that needs more is asked
 * for). A permission of a kind the old version already had, but not covered by any of its
 * permissions, is "widened"; one of a new kind is "added"; old ones no longer declared are "removed".
 */
export function permissionChange(before: readonly Permission[], after: readonly Permission[]): PermissionChange {
  const oldGrants = before.map(grantString);
  const newGrants = after.map(grantString);
  const change: PermissionChange = { added: [], widened: [], removed: [] };
  for (const permission of after) {
    const grant = grantString(permission);
    if (oldGrants.some((g) => g === grant || grantCovers(g, grant))) continue;
    const sameKind = before.find((p) => p.id === permission.id);
    if (sameKind === undefined) change.added.push(permissionView(permission));
    else change.widened.push({ ...permissionView(permission), was: grantString(sameKind) });
  }
  for (const permission of before) {
    const grant = grantString(permission);
    if (!newGrants.some((g) => g === grant || grantCovers(g, grant))) change.removed.push(permissionView(permission));
  }
  return change;
}

const PROBLEM_SEVERITY: Record<string, ProblemSeverity> = {
  revoked: 'error',
  'damaged-install': 'error',
  'damaged-state': 'error',
  'missing-dependency': 'error',
  'missing-sandbox': 'warning',
  'missing-interpreter': 'warning',
  'half-finished-operation': 'warning',
  'corrupt-cache-entry': 'warning',
  'leftover-files': 'info',
  policy: 'error',
  'stale-link': 'warning',
  'dangling-link': 'warning',
  'missing-link': 'info',
  'stale-remote': 'warning',
};

export function problemSeverity(kind: string): ProblemSeverity {
  return PROBLEM_SEVERITY[kind] ?? 'warning';
}

/** Largest readme returned to the UI. */
const MAX_README_BYTES = 512 * 1024;
const PROGRAM_EXTENSIONS = new Set([
  '.sh',
  '.bash',
  '.zsh',
  '.py',
  '.js',
  '.mjs',
  '.cjs',
  '.ts',
  '.rb',
  '.pl',
  '.php',
  '.ps1',
  '.bat',
  '.cmd',
  '.exe',
]);

/** A package path joined under `dir`, refused when it would leave it (manifest paths are checked at install; this is a second guard). */
function inside(dir: string, path: string): string | null {
  const full = join(dir, path);
  const rel = relative(dir, full);
  return rel === '' || rel.startsWith('..') || rel.split(sep).includes('..') ? null : full;
}

async function readText(dir: string, path: string | undefined, max: number): Promise<string | null> {
  if (path === undefined) return null;
  const full = inside(dir, path);
  if (full === null) return null;
  const info = await stat(full).catch(() => null);
  if (info === null || !info.isFile()) return null;
  const bytes = await readFile(full);
  return bytes.subarray(0, max).toString('utf8');
}

async function skillView(manifest: Manifest, dir: string, path: string, installed: boolean): Promise<SkillView> {
  const skillDir = inside(dir, path);
  const name = basename(path);
  let description = '';
  let skillName = name;
  if (skillDir !== null) {
    const md = await readFile(join(skillDir, 'SKILL.md'), 'utf8').catch(() => null);
    if (md !== null) {
      try {
        const front = validateSkillDocument(name, md, `/${path}/SKILL.md`);
        skillName = front.name;
        description = front.description;
      } catch {
        // Validated at install; an unreadable front matter shows the folder name only.
      }
    }
  }
  const prefix = `${path.replace(/\/+$/, '')}/`;
  const programs = manifest.files
    .filter((f) => f.path.startsWith(prefix))
    .filter((f) => f.executable === true || PROGRAM_EXTENSIONS.has(f.path.slice(f.path.lastIndexOf('.')).toLowerCase()))
    .map((f) => f.path.slice(prefix.length));
  const view: SkillView = { path, name: skillName, description, programs };
  if (installed && skillDir !== null) view.directory = skillDir;
  return view;
}

/** What the package says about itself, from its verified files in `dir`. */
export async function packageContents(manifest: Manifest, dir: string, installed: boolean): Promise<PackageContentsView> {
  let workflows: WorkflowView[];
  try {
    const docs = await validateInstalledWorkflows(manifest, dir);
    workflows = docs.map((doc) => ({
      id: doc.id,
      name: doc.name ?? doc.id,
      description: doc.description ?? '',
      inputSchema: doc.inputs === undefined ? null : (doc.inputs as Record<string, unknown>),
      steps: doc.steps.map((step) =>
        isToolStep(step)
          ? {
              id: step.id,
              kind: 'tool' as const,
              tool: step.tool,
              ...(step.capability === undefined ? {} : { capability: step.capability }),
            }
          : { id: step.id, kind: 'agent' as const },
      ),
    }));
  } catch {
    workflows = [];
  }
  return {
    description: manifest.description ?? null,
    readme: await readText(dir, manifest.readme, MAX_README_BYTES),
    license: manifest.license ?? null,
    homepage: manifest.homepage ?? null,
    repository: manifest.repository ?? null,
    tools: (manifest.tools ?? []).map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema as Record<string, unknown>,
      outputSchema: tool.outputSchema === undefined ? null : (tool.outputSchema as Record<string, unknown>),
      runtime: tool.runtime.type,
      permissions: tool.permissions ?? [],
    })),
    skills: await Promise.all((manifest.skills ?? []).map((s) => skillView(manifest, dir, s.path, installed))),
    workflows,
    knowledge: (manifest.knowledge ?? []).map((k) => ({
      id: k.id,
      kind: k.kind,
      ...(k.description === undefined ? {} : { description: k.description }),
    })),
    resources: (manifest.resources ?? []).map((r) => ({
      id: r.id,
      size: r.size,
      lazy: r.lazy !== false,
      ...(r.format === undefined ? {} : { format: r.format }),
    })),
  };
}

/** Total size and count of files under `dir` (the content cache), without following links. */
export async function directorySize(dir: string): Promise<{ bytes: number; entries: number }> {
  let bytes = 0;
  let entries = 0;
  const walk = async (d: string): Promise<void> => {
    const items = await readdir(d, { withFileTypes: true }).catch(() => []);
    for (const item of items) {
      const full = join(d, item.name);
      if (item.isDirectory()) await walk(full);
      else if (item.isFile()) {
        const info = await stat(full).catch(() => null);
        if (info !== null) {
          bytes += info.size;
          entries++;
        }
      }
    }
  };
  await walk(dir);
  return { bytes, entries };
}
