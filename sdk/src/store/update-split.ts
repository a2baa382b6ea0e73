/**
 * Splitting an update into what applies now and what waits for approval (spec
 * §6: a new permission is never granted without the user). Pure functions over plans.
 */
import { grantString } from '../permissions/index.js';
import type { Plan } from './plan.js';
import type { LocatedPackage } from './sources.js';

/** The dependencies of the version a plan item moves to (from its registry document). */
function dependenciesOf(located: ReadonlyMap<string, LocatedPackage>, id: string, version: string): string[] {
  return Object.keys(located.get(id)?.doc.versions[version]?.dependencies ?? {});
}

/**
 * `asking` plus every plan item whose new version depends, directly or through other moving items,
 * on one of them: those cannot move while what they need waits.
 */
export function dependentsWithin(
  context: { plan: Plan; located: ReadonlyMap<string, LocatedPackage> },
  asking: ReadonlySet<string>,
): Set<string> {
  const waiting = new Set(asking);
  for (let changed = true; changed;) {
    changed = false;
    for (const item of context.plan.items) {
      if (waiting.has(item.id)) continue;
      if (dependenciesOf(context.located, item.id, item.version).some((dep) => waiting.has(dep))) {
        waiting.add(item.id);
        changed = true;
      }
    }
  }
  return waiting;
}

/** Items of the full update that the plain part does not carry out, with the permissions they ask for. */
export function waitingUpdates(full: Plan, plain: Plan): Array<{ id: string; from?: string; version: string; newPermissions: string[] }> {
  const done = new Set(plain.items.map((i) => `${i.id}@${i.version}`));
  return full.items
    .filter((i) => !done.has(`${i.id}@${i.version}`))
    .map((i) => ({
      id: i.id,
      ...(i.from === undefined ? {} : { from: i.from }),
      version: i.version,
      newPermissions: i.newPermissions.map(grantString),
    }));
}
