/**
 * One overall risk verdict per capability (docs/ui.md "Permissions, the heart of it"): the highest risk
 * of everything installing it puts on the computer, its own permissions, those of the dependencies
 * it pulls in, and the programs its skills ship (which an agent may run outside the sandbox, so
 * they count as "running programs": high). Each level comes from the permission table (DESIGN §5),
 * never from the publisher; the reason names what sets the level, in words a person reads.
 */
import type { Permission } from '../format/manifest-types.js';
import { describePermission, riskLevel, type RiskLevel } from './describe.js';

/** The verdict's level: `none` when nothing reaches beyond the capabilities' own files. */
export type OverallRisk = RiskLevel | 'none';

/** One capability of the verdict: the one asked about (`dependency: false`) or one it pulls in. */
export interface RiskPart {
  id: string;
  /** The display name, when known (the reason names it with its id). */
  name?: string;
  dependency: boolean;
  permissions: readonly Permission[];
  /** Skills that ship programs an agent may run outside the sandbox (registry entry or manifest). */
  skillPrograms?: readonly { skill: string; programs: readonly string[] }[];
}

/** What sets a level: one permission, or one skill's programs, of one capability. */
export interface RiskFactor {
  level: RiskLevel;
  /** The capability it belongs to. */
  id: string;
  dependency: boolean;
  kind: 'permission' | 'programs';
  /** The permission's grant string, or the skill's name. */
  subject: string;
  /** The factor as a clause: "may connect to any server on the internet". */
  text: string;
}

/** The verdict: its level, one sentence saying why, and every factor, highest first. */
export interface CapabilityRisk {
  level: OverallRisk;
  /** "High: a dependency, Net helper (acme/net), may connect to any server on the internet." */
  reason: string;
  factors: RiskFactor[];
  /** Dependencies whose permissions could not be read: the verdict may be too low by them. */
  unknown: string[];
}

const ORDER: Record<OverallRisk, number> = { none: 0, low: 1, medium: 2, high: 3 };
const LABEL: Record<OverallRisk, string> = { none: 'No risk', low: 'Low', medium: 'Medium', high: 'High' };

/** "Connect to any server on the internet" -> "may connect to any server on the internet" (the table's sentences start with a verb). */
function clause(sentence: string): string {
  const first = sentence.split(';')[0] ?? sentence;
  return `may ${first.charAt(0).toLowerCase()}${first.slice(1)}`;
}

function who(part: RiskPart): string {
  if (!part.dependency) return 'it';
  const name = part.name !== undefined && part.name !== part.id ? `${part.name} (${part.id})` : part.id;
  return `a dependency, ${name},`;
}

/**
 * The overall risk of `parts` (the capability and the dependencies installing it pulls in).
 * `unknown` lists dependencies whose metadata could not be read; the reason says so.
 */
export function capabilityRisk(parts: readonly RiskPart[], unknown: readonly string[] = []): CapabilityRisk {
  const factors: Array<RiskFactor & { who: string }> = [];
  for (const part of parts) {
    for (const permission of part.permissions) {
      factors.push({
        level: riskLevel(permission),
        id: part.id,
        dependency: part.dependency,
        kind: 'permission',
        subject: permission.scope === undefined ? permission.id : `${permission.id}:${permission.scope}`,
        text: clause(describePermission(permission)),
        who: who(part),
      });
    }
    for (const skill of part.skillPrograms ?? []) {
      const n = skill.programs.length;
      if (n === 0) continue;
      factors.push({
        level: 'high',
        id: part.id,
        dependency: part.dependency,
        kind: 'programs',
        subject: skill.skill,
        text: `ships ${n} program${n === 1 ? '' : 's'} in its skill ${skill.skill} that your agent may run outside Arcotheon’s sandbox`,
        who: who(part),
      });
    }
  }
  // Highest first; the capability's own before its dependencies', programs before permissions.
  factors.sort(
    (a, b) =>
      ORDER[b.level] - ORDER[a.level] ||
      Number(a.dependency) - Number(b.dependency) ||
      (a.kind === b.kind ? 0 : a.kind === 'programs' ? -1 : 1),
  );
  const top = factors[0];
  const level: OverallRisk = top?.level ?? 'none';
  let reason: string;
  if (top === undefined) {
    reason = parts.some((p) => p.dependency)
      ? 'No risk: neither it nor its dependencies ask for access beyond their own files.'
      : 'No risk: it asks for no access beyond its own files.';
  } else {
    const more = factors.filter((f) => f.level === top.level).length - 1;
    reason = `${LABEL[level]}: ${top.who} ${top.text}${more > 0 ? `, and ${more} more at this level` : ''}.`;
  }
  if (unknown.length > 0) {
    reason += ` The permissions of ${unknown.join(', ')} could not be read, so the risk may be higher.`;
  }
  return { level, reason, factors: factors.map(({ who: _who, ...factor }) => factor), unknown: [...unknown] };
}
