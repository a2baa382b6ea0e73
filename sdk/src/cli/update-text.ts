/**
 * What `adcap update` says: what was updated, what waits for the user's
 * approval of new permissions, and what the range the user asked for keeps below a newer version,
 * with the command that moves it. "Up to date" only when nothing newer exists.
 */
import type { UpdateResult } from '../store/arcotheon.js';

export function updateLines(result: UpdateResult): string[] {
  const lines: string[] = [];
  if (result.applied) for (const i of result.installed) lines.push(`updated ${i.id} to ${i.version}`);
  for (const w of result.waiting) {
    const asks =
      w.newPermissions.length === 0
        ? 'waits for an update that needs your approval'
        : `needs your approval of new permissions (${w.newPermissions.join(', ')})`;
    lines.push(`${w.id} ${w.version}${w.from === undefined ? '' : ` (from ${w.from})`} ${asks}; review it with "adcap update ${w.id}"`);
  }
  for (const p of result.pinned) {
    lines.push(
      `${p.id} stays at ${p.version} because it was installed as ${p.range}; ` +
        `${p.latest} is available: "adcap install ${p.request}" moves to it`,
    );
  }
  if (lines.length === 0) return result.plan.items.length === 0 ? ['Everything is up to date.'] : result.plan.report.lines;
  return lines;
}
