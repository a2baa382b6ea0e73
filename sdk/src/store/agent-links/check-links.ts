/** doctor's look at the skill links, and its repair. */
import { isAdcapError } from '../../errors.js';
import type { Problem } from '../doctor-problem.js';
import { agentDefinition } from './agents.js';
import { linkStatuses } from './on-disk.js';
import type { LinkStatus, LinkStore } from './records.js';
import { syncLinks } from './sync-links.js';

/**
 * doctor: links that point nowhere (dangling), at a version that is no longer active
 * (stale), or that someone removed or replaced (the record is dropped; their folder is left
 * alone). With `fix`, links are moved to the active version or removed (the fix run holds the lock).
 */
export async function checkLinks(arc: LinkStore, fix: boolean): Promise<Problem[]> {
  let statuses: LinkStatus[];
  try {
    statuses = await linkStatuses(arc);
  } catch (error) {
    if (!isAdcapError(error)) throw error;
    return [{ kind: 'dangling-link', message: error.message, fixable: false }];
  }
  const problems: Problem[] = [];
  const bad = statuses.filter((s) => s.state !== 'ok' && s.state !== 'suspended');
  for (const s of bad) {
    const where = `${s.path} (${agentDefinition(s.agent).name})`;
    const message =
      s.state === 'stale'
        ? `The skill link ${where} points at ${s.id} ${s.version}, which is no longer the active version.`
        : s.state === 'dangling'
          ? `The skill link ${where} of ${s.id} points nowhere (${s.id}@${s.version} is not installed any more).`
          : s.state === 'missing'
            ? `The skill link ${where} of ${s.id} was removed outside Arcotheon.`
            : `${where} was replaced by something Arcotheon did not make; it is left alone and no longer counted as ${s.id}'s link.`;
    problems.push({
      kind: s.state === 'stale' ? 'stale-link' : s.state === 'dangling' ? 'dangling-link' : 'missing-link',
      id: s.id,
      version: s.version,
      message,
      fixable: true,
      repair:
        s.state === 'stale'
          ? `Point the skill link ${s.path} at the active version of ${s.id}`
          : s.state === 'dangling'
            ? `Remove the skill link ${s.path}`
            : `Stop counting ${s.path} as a link of ${s.id} (nothing in ${agentDefinition(s.agent).name}'s folder is changed)`,
    });
  }
  if (fix && bad.length > 0) {
    const left = await syncLinks(arc, [...new Set(bad.map((s) => s.id))]);
    const after = await linkStatuses(arc).catch(() => [] as LinkStatus[]);
    for (const [i, s] of bad.entries()) {
      const now = after.find((a) => a.path === s.path && a.id === s.id);
      const problem = problems[i] as Problem;
      if (now === undefined) problem.fixed = s.state === 'missing' || s.state === 'replaced' ? 'forgotten' : 'removed';
      else if (now.state === 'ok') problem.fixed = `moved to ${now.version}`;
    }
    for (const message of left) problems.push({ kind: 'dangling-link', message, fixable: false });
  }
  return problems;
}
