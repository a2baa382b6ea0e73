import type { Clash, Requirement } from './search.js';
import type { Candidate, Universe } from './universe.js';

interface Explanation {
  /** E_RESOLVE, or E_INCOMPATIBLE / E_NOT_FOUND when every version a requirement allows is excluded for that reason. */
  code: 'E_RESOLVE' | 'E_INCOMPATIBLE' | 'E_NOT_FOUND';
  message: string;
  details: Record<string, unknown>;
}

/**
 * Turns what the search found into one sentence a person can act on (spec §11, DESIGN §9
 * E_RESOLVE: "the message explains the conflict"). The first clash that the published versions
 * alone prove unsatisfiable is reported with the fewest requirements that conflict, e.g.
 * "acme/a 2.0.0 to 2.3.0 needs acme/lib ^1.0, but acme/b 1.1.0 needs acme/lib ^2.0; no version
 * of acme/lib satisfies both."
 */
export function explainConflict(universe: Universe, clashes: readonly Clash[]): Explanation {
  for (const clash of clashes) {
    const explained = explainClash(universe, clash);
    if (explained !== null) return explained;
  }
  const roots = universe.request.roots;
  return {
    code: 'E_RESOLVE',
    message:
      `No combination of versions satisfies every requirement of ${roots.map((r) => `${r.id} ${r.range}`).join(', ')}; ` +
      'try a wider range or fewer capabilities at once.',
    details: { constraints: roots.map((r) => ({ id: r.id, range: r.range, requiredBy: 'request' })) },
  };
}

function explainClash(universe: Universe, clash: Clash): Explanation | null {
  const { target, requirements } = clash;
  const versions = universe.versions(target);
  const book = universe.book;
  const pins = new Set(requirements.map((r) => book.exactPin(r.range)).filter((p) => p !== null));
  const usable = versions.filter((c) => c.excluded === undefined && (!c.needsPin || pins.has(c.norm)));
  const fits = (subset: readonly Requirement[]): boolean => usable.some((c) => subset.every((r) => book.satisfies(c.version, r.range)));
  const details = (subset: readonly Requirement[]): Record<string, unknown> => ({
    target,
    constraints: subset.map((r) => ({
      id: target,
      range: r.range,
      requiredBy: r.owner === null ? 'request' : `${r.owner} ${r.ownerVersion ?? ''}`.trim(),
    })),
  });

  const unique = dedupe(requirements);
  for (const r of unique) {
    if (fits([r])) continue;
    const matching = versions.filter((c) => book.satisfies(c.version, r.range));
    const kinds = new Set(matching.map((c) => c.excludedKind));
    const only = kinds.size === 1 ? [...kinds][0] : undefined;
    return {
      code: only === 'incompatible' ? 'E_INCOMPATIBLE' : only === 'missing' ? 'E_NOT_FOUND' : 'E_RESOLVE',
      message: `${capitalise(phrase(universe, target, r))}, but ${noneUsable(universe, versions, r)}.`,
      details: details([r]),
    };
  }
  for (let i = 0; i < unique.length; i++) {
    for (let j = i + 1; j < unique.length; j++) {
      const a = unique[i] as Requirement;
      const b = unique[j] as Requirement;
      if (fits([a, b])) continue;
      // Lead with the request when it takes part: that is the side the user controls.
      const [first, second] = b.owner === null && a.owner !== null ? [b, a] : [a, b];
      return {
        code: 'E_RESOLVE',
        message:
          `${capitalise(phrase(universe, target, first))}, but ${phrase(universe, target, second)}; ` +
          `no version of ${target} satisfies both.`,
        details: details([first, second]),
      };
    }
  }
  if (fits(unique)) return null;
  return {
    code: 'E_RESOLVE',
    message: `No version of ${target} satisfies all of these together: ${unique.map((r) => phrase(universe, target, r)).join('; ')}.`,
    details: details(unique),
  };
}

/** "you asked for acme/lib ^2.0" or "acme/a 2.0.0 to 2.3.0 needs acme/lib ^1.0". */
function phrase(universe: Universe, target: string, r: Requirement): string {
  if (r.owner === null) return `you asked for ${target} ${r.range}`;
  return `${r.owner} ${ownerVersions(universe, r.owner, r.ownerVersion, target, r.range)} needs ${target} ${r.range}`;
}

/**
 * The run of neighbouring usable versions of `owner` (within what was asked for it) that all
 * declare the same range on `target`: one requirement usually stands for many versions.
 */
function ownerVersions(universe: Universe, owner: string, version: string | undefined, target: string, range: string): string {
  const book = universe.book;
  const asked = universe.request.roots.filter((r) => r.id === owner);
  const list = universe.versions(owner).filter((c) => c.excluded === undefined && asked.every((r) => book.satisfies(c.version, r.range)));
  const at = list.findIndex((c) => c.version === version);
  if (at < 0) return version ?? '';
  let hi = at;
  let lo = at;
  while (hi > 0 && list[hi - 1]?.depMap.get(target) === range) hi--;
  while (lo < list.length - 1 && list[lo + 1]?.depMap.get(target) === range) lo++;
  const high = list[hi]?.version ?? '';
  const low = list[lo]?.version ?? '';
  return hi === lo ? high : `${low} to ${high}`;
}

function noneUsable(universe: Universe, versions: readonly Candidate[], r: Requirement): string {
  const target = versions[0]?.id ?? 'it';
  const matching = versions.filter((c) => universe.book.satisfies(c.version, r.range));
  if (matching.length === 0) {
    const available = versions.slice(0, 5).map((c) => c.version);
    const more = versions.length > 5 ? ', ...' : '';
    return `no published version of ${target} matches (available: ${available.join(', ')}${more})`;
  }
  const reasons = matching.slice(0, 3).map((c) => c.excluded ?? `${c.id} ${c.version} is yanked and nothing pins it exactly`);
  const more = matching.length > 3 ? ` (and ${matching.length - 3} more)` : '';
  return `no matching version can be used: ${reasons.join('; ')}${more}`;
}

function dedupe(requirements: readonly Requirement[]): Requirement[] {
  const seen = new Set<string>();
  return requirements.filter((r) => {
    const key = `${r.owner ?? ''}\u0000${r.range}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Sentences may start with an id (ids are lowercase by spec §3); only "you" is capitalised. */
function capitalise(text: string): string {
  return text.startsWith('you ') ? `Y${text.slice(1)}` : text;
}
