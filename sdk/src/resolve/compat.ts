import semver from 'semver';
import { INTERPRETER_RUNTIMES, interpreterOf } from '../format/runtime-table.js';
import { hostPlatform } from '../util/platform.js';
import type { CandidateVersion, HostEnvironment } from './types.js';

/** What `checkCompatibility()` looks at of a version: its compat block and whether it ships tools. */
export type CompatibilityCandidate = Pick<CandidateVersion, 'version' | 'compat' | 'hasTools'> & {
  /** Used to name the capability in the reason; `this capability` when absent. */
  id?: string;
};

/** Whether a version is compatible with this host, and if not, why (spec §11). */
export type CompatibilityResult = { ok: true } | { ok: false; reason: string };

export { hostPlatform };

/**
 * Whether a version may be installed on this host (spec §11: a host MUST refuse an incompatible
 * version and say why). The reason is one sentence naming the capability, what it needs and what
 * this computer has.
 */
export function checkCompatibility(candidate: CompatibilityCandidate, host: HostEnvironment): CompatibilityResult {
  const who = `${candidate.id ?? 'this capability'} ${candidate.version}`;
  const compat = candidate.compat ?? {};

  // spec §11: compat.platforms lists `any` or os-arch values; absent means any.
  const platforms = compat.platforms;
  if (platforms !== undefined && !platforms.includes('any') && !platforms.includes(host.platform)) {
    const list = platforms.length === 0 ? 'no platform' : `${joinWords(platforms)} only`;
    return { ok: false, reason: `${who} supports ${list}, and this computer is ${host.platform}.` };
  }

  // spec §11: a host the capability does not list is incompatible when it ships tools,
  // and assumed compatible for skills-only capabilities.
  const agents = compat.agents;
  if (agents !== undefined) {
    const range = Object.hasOwn(agents, host.agent.id) ? agents[host.agent.id] : undefined;
    if (range === undefined) {
      if (candidate.hasTools) {
        const listed = Object.keys(agents);
        const supported = listed.length === 0 ? 'no agent' : joinWords(listed);
        return {
          ok: false,
          reason: `${who} ships tools and supports ${supported}, not ${host.agent.id}.`,
        };
      }
    } else if (!versionSatisfies(host.agent.version, range)) {
      return {
        ok: false,
        reason: `${who} needs ${host.agent.id} ${range}, and this agent is version ${host.agent.version}.`,
      };
    }
  }

  // spec §11: compat.runtimes records interpreter requirements; each must be found and fit.
  const runtimes = compat.runtimes ?? {};
  for (const key of INTERPRETER_RUNTIMES) {
    const range = runtimes[key];
    if (range === undefined) continue;
    const found = host.runtimes[key];
    const name = interpreterOf(key).label;
    if (found === undefined) {
      return { ok: false, reason: `${who} needs ${name} ${range}, which was not found on this computer; install it and try again.` };
    }
    if (!versionSatisfies(found, range)) {
      return { ok: false, reason: `${who} needs ${name} ${range}, and this computer has ${name} ${found}.` };
    }
  }
  return { ok: true };
}

/** Host and interpreter versions are not always strict semver (`3.12`, `22.1.0-nightly`): coerce them. */
function versionSatisfies(found: string, range: string): boolean {
  const version = semver.valid(found) ?? semver.coerce(found)?.version;
  if (version === undefined || semver.validRange(range) === null) return false;
  return semver.satisfies(version, range, { includePrerelease: true });
}

function joinWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1] ?? ''}`;
}
