import fc from 'fast-check';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import type { Compat } from '../../../sdk/src/format/manifest-types.js';
import { AdcapError } from '../../../sdk/src/errors.js';
import { checkCompatibility } from '../../../sdk/src/resolve/compat.js';
import { resolve } from '../../../sdk/src/resolve/resolver.js';
import type { CandidateVersion, ResolveRequest, Resolution } from '../../../sdk/src/resolve/types.js';
import { HOST } from './fixtures.js';

// Small random registries: few ids, few versions, ranges that overlap in interesting ways.
const IDS = ['p/a', 'p/b', 'p/c', 'p/d', 'p/e'];
const VERSIONS = ['0.9.0', '1.0.0', '1.1.0', '1.2.0-beta.1', '2.0.0', '2.0.0-rc.1'];
const RANGES = [
  '*',
  '*',
  '>=0.9.0',
  '^1.0.0',
  '^2.0.0',
  '>=1.0.0',
  '<2.0.0',
  '~1.1.0',
  '1.1.0',
  '=2.0.0-rc.1',
  '1.2.0-beta.1',
  '0.9.0',
  '>=1.2.0-beta.1',
];

const OPEN_RANGES = ['*', '>=0.9.0', '^1.0.0', '<2.0.0', '>=1.0.0'];
const rangeArb = fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...OPEN_RANGES) }, fc.constantFrom(...RANGES));

const compatArb: fc.Arbitrary<Compat> = fc.record(
  {
    platforms: fc.constantFrom<string[]>(['any'], ['linux-x64'], ['linux-arm64'], ['darwin-arm64', 'linux-x64']),
    agents: fc.constantFrom<Record<string, string>>({ claude: '>=1.0.0' }, { claude: '^2.0.0' }, { codex: '*' }, {}),
    runtimes: fc.constantFrom<Compat['runtimes']>({ node: '>=20' }, { node: '>=24' }, { python: '>=3.10' }, {}),
  },
  { requiredKeys: [] },
);

const versionArb = (ids: string[]): fc.Arbitrary<CandidateVersion> =>
  fc.record({
    version: fc.constantFrom(...VERSIONS),
    status: fc.constantFrom(undefined, undefined, undefined, undefined, undefined, 'yanked' as const, 'revoked' as const),
    // A dependency on an id nobody publishes now and then (E_NOT_FOUND paths).
    dependencies: fc.dictionary(fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...ids) }, fc.constant('p/ghost')), rangeArb, {
      maxKeys: 2,
    }),
    compat: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, compatArb),
    hasTools: fc.boolean(),
  });

interface Case {
  registry: Record<string, CandidateVersion[]>;
  roots: Array<{ id: string; range: string }>;
  installed: Record<string, string>;
  includePrerelease: boolean;
}

const caseArb: fc.Arbitrary<Case> = fc.integer({ min: 2, max: IDS.length }).chain((n) => {
  const ids = IDS.slice(0, n);
  return fc.record({
    registry: fc.record(
      Object.fromEntries(
        ids.map((id) => [id, fc.uniqueArray(versionArb(ids), { minLength: 1, maxLength: 4, selector: (v) => v.version })]),
      ),
    ),
    // Mostly open requests, so that the dependencies decide; sometimes any range at all.
    roots: fc.uniqueArray(
      fc.record({ id: fc.constantFrom(...ids), range: fc.oneof({ weight: 3, arbitrary: fc.constant('*') }, fc.constantFrom(...RANGES)) }),
      {
        minLength: 1,
        maxLength: 2,
        selector: (r) => r.id,
      },
    ),
    installed: fc.dictionary(fc.constantFrom(...ids), fc.constantFrom(...VERSIONS), { maxKeys: 2 }),
    includePrerelease: fc.boolean(),
  });
});

function toRequest(c: Case): ResolveRequest {
  return {
    roots: c.roots,
    available: (id) => (Object.hasOwn(c.registry, id) ? (c.registry[id] ?? []) : []),
    installed: c.installed,
    host: HOST,
    includePrerelease: c.includePrerelease,
  };
}

// ---- The oracle: spec §11 restated independently of the resolver, checked by brute force. ----

const sat = (version: string, range: string): boolean => semver.satisfies(version, range, { includePrerelease: true });
/** "Pinned exactly" / "named exactly": the range is one version, optionally with `=`. */
const pins = (range: string, version: string): boolean => range.trim().replace(/^=\s*/, '') === version;

function find(c: Case, id: string, version: string): CandidateVersion | undefined {
  return (c.registry[id] ?? []).find((v) => v.version === version);
}

/**
 * Requirements on each id from the roots and from every selected version reachable from them.
 * Only reachable versions count: a package nobody asked for must not justify itself through a
 * self-dependency (or a cycle among unrequested packages) and so pin something into the result.
 */
function requirementsOf(c: Case, selection: Record<string, string>): Map<string, string[]> {
  const reqs = new Map<string, string[]>();
  const add = (id: string, range: string): void => {
    reqs.set(id, [...(reqs.get(id) ?? []), range]);
  };
  const queue: string[] = [];
  const visited = new Set<string>();
  const reach = (id: string): void => {
    if (!visited.has(id)) {
      visited.add(id);
      queue.push(id);
    }
  };
  for (const r of c.roots) {
    add(r.id, r.range);
    reach(r.id);
  }
  while (queue.length > 0) {
    const id = queue.shift() as string;
    const version = selection[id];
    if (version === undefined) continue;
    for (const [dep, range] of Object.entries(find(c, id, version)?.dependencies ?? {})) {
      add(dep, range);
      reach(dep);
    }
  }
  return reqs;
}

/**
 * Every constraint satisfied, every selected version allowed: spec §11 with `others` as selected.
 * `exact` also demands that exactly the required ids are selected (a complete resolution).
 */
function violations(c: Case, selection: Record<string, string>, exact: boolean): string[] {
  const problems: string[] = [];
  const reqs = requirementsOf(c, selection);
  for (const [id, ranges] of reqs) {
    const version = selection[id];
    if (version === undefined) {
      problems.push(`${id} required but not selected`);
      continue;
    }
    for (const range of ranges) if (!sat(version, range)) problems.push(`${id} ${version} breaks ${range}`);
  }
  for (const [id, version] of Object.entries(selection)) {
    const candidate = find(c, id, version);
    if (candidate === undefined) {
      problems.push(`${id} ${version} is not published`);
      continue;
    }
    if (exact && !reqs.has(id)) problems.push(`${id} selected but not required`);
    const pinned = (reqs.get(id) ?? []).some((r) => pins(r, version));
    if (candidate.status === 'revoked') problems.push(`${id} ${version} revoked`);
    if (candidate.status === 'yanked' && !pinned) problems.push(`${id} ${version} yanked, not pinned`);
    if (semver.prerelease(version) !== null && !c.includePrerelease && !pinned) problems.push(`${id} ${version} prerelease`);
    if (!checkCompatibility(candidate, HOST).ok) problems.push(`${id} ${version} incompatible`);
  }
  return problems;
}

/** All complete resolutions, by enumerating every choice (or absence) for every id. */
function bruteForce(c: Case): Array<Record<string, string>> {
  const ids = Object.keys(c.registry);
  const found: Array<Record<string, string>> = [];
  const walk = (i: number, selection: Record<string, string>): void => {
    if (i === ids.length) {
      if (violations(c, selection, true).length === 0) found.push({ ...selection });
      return;
    }
    const id = ids[i] as string;
    walk(i + 1, selection);
    for (const v of c.registry[id] ?? []) {
      selection[id] = v.version;
      walk(i + 1, selection);
      delete selection[id];
    }
  };
  walk(0, {});
  return found;
}

function attempt(c: Case): Resolution | AdcapError {
  try {
    return resolve(toRequest(c));
  } catch (error) {
    if (error instanceof AdcapError) return error;
    throw error;
  }
}

/** Dependencies before dependents, except along a cycle. */
function orderProblems(c: Case, result: Resolution): string[] {
  const problems: string[] = [];
  const at = new Map(result.order.map((id, i) => [id, i]));
  if (
    at.size !== result.order.length ||
    !Object.keys(result.versions).every((id) => at.has(id)) ||
    at.size !== Object.keys(result.versions).length
  ) {
    problems.push('order is not a permutation of the selected ids');
  }
  const depsOf = (id: string): string[] => Object.keys(find(c, id, result.versions[id] ?? '')?.dependencies ?? {});
  const reaches = (from: string, to: string): boolean => {
    const seen = new Set<string>();
    const stack = [from];
    while (stack.length > 0) {
      const id = stack.pop() as string;
      if (id === to) return true;
      if (seen.has(id)) continue;
      seen.add(id);
      stack.push(...depsOf(id));
    }
    return false;
  };
  for (const id of result.order) {
    for (const dep of depsOf(id)) {
      if ((at.get(dep) ?? -1) > (at.get(id) ?? -1) && !reaches(dep, id)) problems.push(`${dep} after its dependent ${id}`);
    }
  }
  return problems;
}

describe('resolve: properties over random registries (spec §11)', () => {
  it('a result satisfies every constraint, is maximal and ordered; a failure means no resolution exists', () => {
    let solved = 0;
    let failed = 0;
    fc.assert(
      fc.property(caseArb, (c) => {
        const outcome = attempt(c);
        const solutions = bruteForce(c);
        if (outcome instanceof AdcapError) {
          failed++;
          expect(['E_RESOLVE', 'E_INCOMPATIBLE', 'E_NOT_FOUND']).toContain(outcome.code);
          expect(outcome.message).toMatch(/\.$/);
          expect(solutions).toEqual([]);
          return;
        }
        solved++;
        expect(violations(c, outcome.versions, true)).toEqual([]);
        expect(orderProblems(c, outcome)).toEqual([]);
        // Maximal: no selected id could move to a higher version with everything else fixed
        // (unless it is deliberately kept at its installed version).
        for (const [id, version] of Object.entries(outcome.versions)) {
          if (c.installed[id] === version) continue;
          for (const higher of (c.registry[id] ?? []).filter((v) => semver.gt(v.version, version))) {
            const bumped = { ...outcome.versions, [id]: higher.version };
            expect(violations(c, bumped, false), `${id} could be ${higher.version}`).not.toEqual([]);
          }
        }
        // Installed versions that fit are kept.
        for (const [id, version] of Object.entries(c.installed)) {
          const chosen = outcome.versions[id];
          if (chosen === undefined || chosen === version) continue;
          const kept = { ...outcome.versions, [id]: version };
          expect(violations(c, kept, false), `${id} could have stayed at ${version}`).not.toEqual([]);
        }
      }),
      { numRuns: 300, seed: 20240611 },
    );
    // The generator must exercise both outcomes, or the property proves little.
    expect(solved).toBeGreaterThan(30);
    expect(failed).toBeGreaterThan(30);
  });

  it('an unrequested package that depends on itself does not pin a prerelease into the result (found by a random seed)', () => {
    const c: Case = {
      registry: {
        'p/b': [{ version: '0.9.0', dependencies: { 'p/d': '1.2.0-beta.1', 'p/b': '*' }, hasTools: false }],
        'p/d': [
          { version: '1.2.0-beta.1', dependencies: {}, hasTools: false },
          { version: '0.9.0', dependencies: { 'p/ghost': '*' }, compat: {}, hasTools: false },
        ],
      },
      roots: [{ id: 'p/d', range: '*' }],
      installed: {},
      includePrerelease: false,
    };
    expect(attempt(c)).toBeInstanceOf(AdcapError);
    expect(bruteForce(c)).toEqual([]);
  });

  it('random seeds: the same properties hold', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const outcome = attempt(c);
        if (outcome instanceof AdcapError) {
          expect(bruteForce(c)).toEqual([]);
        } else {
          expect(violations(c, outcome.versions, true)).toEqual([]);
        }
      }),
      { numRuns: 200 },
    );
  });
});
