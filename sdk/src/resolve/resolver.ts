import { AdcapError } from '../errors.js';
import { checkCompatibility } from './compat.js';
import { explainConflict } from './explain.js';
import { RangeBook } from './ranges.js';
import { BudgetExceeded, Search } from './search.js';
import { checkRoots, Universe } from './universe.js';
import type { UniverseOptions } from './universe.js';
import type { ResolveRequest, Resolution } from './types.js';

const DEFAULT_MAX_STEPS = 200_000;

/**
 * spec §11: picks the highest versions satisfying every constraint (from the roots and from the
 * dependencies of every selected version), backtracking on conflict; prereleases only when
 * requested or named exactly; yanked versions only when pinned exactly; revoked never; and only
 * versions compatible with the host (platform, agent, runtimes). Installed versions are kept while
 * they satisfy every constraint. Pure: everything it knows comes from `request`.
 *
 * Throws E_NOT_FOUND (a requested id does not exist, or the only way through needs one that does
 * not), E_INCOMPATIBLE (only versions excluded by this host would do), E_RESOLVE (the constraints
 * conflict; the message names them) and E_USAGE (a requested range is not a semver range).
 */
export function resolve(request: ResolveRequest): Resolution {
  checkRoots(request, new RangeBook());
  const universe = new Universe(request);
  for (const root of request.roots) {
    if (!universe.packages.has(root.id)) {
      throw new AdcapError('E_NOT_FOUND', `${root.id} does not exist in the registries this host uses; check the id.`, {
        details: { id: root.id },
      });
    }
  }
  const maxSteps = request.maxSteps ?? DEFAULT_MAX_STEPS;
  const search = new Search(universe, maxSteps);
  let found: boolean;
  try {
    found = search.run();
  } catch (error) {
    if (error instanceof BudgetExceeded) throw tooManyCombinations(request, maxSteps);
    throw error;
  }
  if (found) return resolutionOf(search);
  throw diagnose(request, universe, search, maxSteps);
}

function diagnose(request: ResolveRequest, universe: Universe, search: Search, maxSteps: number): AdcapError {
  // E_INCOMPATIBLE: a solution exists once the host is ignored, so the host is what excludes it.
  if (universe.hasIncompatible) {
    const relaxed = attempt(request, { ignoreCompat: true }, maxSteps);
    if (relaxed !== null) {
      const excluded = [...relaxed.assigned.values()].flatMap((c) => {
        const check = checkCompatibility({ ...c.source, id: c.id }, request.host);
        return check.ok ? [] : [{ id: c.id, version: c.version, reason: check.reason }];
      });
      const first = excluded[0];
      if (first !== undefined) {
        const more = excluded.length - 1;
        const others = more === 0 ? '' : ` ${more} other needed ${more === 1 ? 'capability is' : 'capabilities are'} incompatible too.`;
        return new AdcapError('E_INCOMPATIBLE', `${first.reason}${others}`, { details: { incompatible: excluded } });
      }
    }
  }
  // E_NOT_FOUND: a solution exists if dependencies on ids that do not exist are ignored.
  if (universe.missing.size > 0) {
    const relaxed = attempt(request, { ignoreMissing: true }, maxSteps);
    if (relaxed !== null) {
      const missing = [...relaxed.assigned.values()].flatMap((c) =>
        Object.keys(c.source.dependencies)
          .filter((dep) => !universe.packages.has(dep))
          .map((dep) => ({ id: dep, requiredBy: `${c.id} ${c.version}` })),
      );
      const first = missing[0];
      if (first !== undefined) {
        return new AdcapError(
          'E_NOT_FOUND',
          `${first.requiredBy} needs ${first.id}, which does not exist in the ` +
            'registries this host uses; ask its publisher or pick another version.',
          { details: { missing } },
        );
      }
    }
  }
  const explained = explainConflict(universe, search.clashes);
  return new AdcapError(explained.code, explained.message, { details: explained.details });
}

function attempt(request: ResolveRequest, options: UniverseOptions, maxSteps: number): Search | null {
  const search = new Search(new Universe(request, options), maxSteps);
  try {
    return search.run() ? search : null;
  } catch (error) {
    if (error instanceof BudgetExceeded) return null;
    throw error;
  }
}

function tooManyCombinations(request: ResolveRequest, maxSteps: number): AdcapError {
  const roots = request.roots.map((r) => `${r.id} ${r.range}`).join(', ');
  return new AdcapError(
    'E_RESOLVE',
    `Resolving ${roots} tried too many combinations (more than ${maxSteps} versions) without finding one that fits; ` +
      'pin exact versions of some capabilities to narrow the search.',
    { details: { maxSteps, roots: request.roots } },
  );
}

function resolutionOf(search: Search): Resolution {
  const versions: Record<string, string> = {};
  const reasons: Record<string, string[]> = {};
  for (const [id, candidate] of search.assigned) {
    versions[id] = candidate.version;
    reasons[id] = (search.requirements.get(id) ?? []).map((r) =>
      r.owner === null ? `requested ${r.range}` : `${r.owner} ${r.ownerVersion ?? ''} needs ${r.range}`,
    );
  }
  // Dependencies before dependents: depth-first post-order from the roots; a cycle is cut where
  // it closes (spec §11 allows consistent cycles), so the order stays deterministic.
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string): void => {
    if (state.has(id)) return;
    state.set(id, 'visiting');
    for (const [dep] of search.assigned.get(id)?.deps ?? []) visit(dep);
    state.set(id, 'done');
    order.push(id);
  };
  for (const root of search.rootIds()) visit(root);
  return { versions, order, reasons };
}
