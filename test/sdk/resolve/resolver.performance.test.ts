import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { AdcapError } from '../../../sdk/src/errors.js';
import { resolve } from '../../../sdk/src/resolve/resolver.js';
import { request } from './fixtures.js';
import type { Registry } from './fixtures.js';
import { buriedConflictRegistry, realisticRegistry } from './realistic.js';

/** Every requirement of the request and of every selected version is met. */
function unmet(registry: Registry, roots: Record<string, string>, versions: Record<string, string>): string[] {
  const problems: string[] = [];
  const check = (who: string, id: string, range: string): void => {
    const version = versions[id];
    if (version === undefined || !semver.satisfies(version, range, { includePrerelease: true })) problems.push(`${who} -> ${id} ${range}`);
  };
  for (const [id, range] of Object.entries(roots)) check('request', id, range);
  for (const [id, version] of Object.entries(versions)) {
    const v = registry[id]?.find((c) => c.version === version);
    if (v === undefined || v.status === 'revoked' || semver.prerelease(version) !== null) problems.push(`${id} ${version} not allowed`);
    for (const [dep, range] of Object.entries(v?.dependencies ?? {})) check(`${id} ${version}`, dep, range);
  }
  return problems;
}

// How long these take is measured by `npm run bench -- resolver` (test/bench/resolver.bench.ts,
// target 8 s each); here, only the answers (no timing assertions in unit tests).
describe('resolve: realistic graphs', () => {
  it('resolves 400 capabilities with 25 versions each, meeting every requirement', () => {
    for (const seed of [1, 2, 3]) {
      const registry = realisticRegistry(400, 25, seed);
      const roots = Object.fromEntries(
        Object.keys(registry)
          .slice(0, 20)
          .map((id) => [id, '*']),
      );
      const result = resolve(request(registry, roots));
      expect(Object.keys(result.versions).length).toBeGreaterThan(200);
      expect(unmet(registry, roots, result.versions)).toEqual([]);
    }
  });

  it('explains a conflict buried under a large graph without exploring every combination', () => {
    const { registry, lib } = buriedConflictRegistry();
    let error: unknown;
    try {
      resolve(request(registry, { 'acme/left': '*', 'acme/right': '*' }));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AdcapError);
    expect((error as AdcapError).code).toBe('E_RESOLVE');
    expect((error as AdcapError).message).toBe(
      `acme/left 1.0.0 needs ${lib} ^1.0.0, but acme/right 1.0.0 to 1.1.0 needs ${lib} ^2.0.0; no version of ${lib} satisfies both.`,
    );
  });
});
