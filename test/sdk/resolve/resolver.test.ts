import { describe, expect, it } from 'vitest';
import { AdcapError } from '../../../sdk/src/errors.js';
import { resolve } from '../../../sdk/src/resolve/resolver.js';
import { HOST, request } from './fixtures.js';
import type { Registry } from './fixtures.js';

function failure(fn: () => unknown): AdcapError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AdcapError) return error;
    throw error;
  }
  throw new Error('expected resolve() to fail');
}

describe('resolve (spec §11)', () => {
  it('picks the highest versions satisfying every constraint and orders dependencies first', () => {
    const registry: Registry = {
      'acme/app': [
        { version: '1.0.0', dependencies: { 'acme/lib': '^1.0.0' } },
        { version: '1.2.0', dependencies: { 'acme/lib': '^1.1.0', 'acme/util': '~2.0.0' } },
        { version: '2.0.0', dependencies: { 'acme/lib': '^2.0.0' } },
      ],
      'acme/lib': [
        { version: '1.0.0' },
        { version: '1.1.0' },
        { version: '1.3.0', dependencies: { 'acme/util': '>=2.0.0' } },
        { version: '2.0.0' },
      ],
      'acme/util': [{ version: '2.0.0' }, { version: '2.0.5' }, { version: '2.1.0' }],
    };
    const result = resolve(request(registry, { 'acme/app': '^1.0.0' }));
    expect(result.versions).toEqual({ 'acme/app': '1.2.0', 'acme/lib': '1.3.0', 'acme/util': '2.0.5' });
    expect(result.order).toEqual(['acme/util', 'acme/lib', 'acme/app']);
    expect(result.reasons['acme/util']).toEqual(['acme/app 1.2.0 needs ~2.0.0', 'acme/lib 1.3.0 needs >=2.0.0']);
    expect(result.reasons['acme/app']).toEqual(['requested ^1.0.0']);
  });

  it('prerelease: considered only when requested or named exactly', () => {
    const registry: Registry = {
      'acme/x': [{ version: '1.0.0' }, { version: '2.0.0-beta.1' }, { version: '2.0.0-beta.2' }],
    };
    expect(resolve(request(registry, { 'acme/x': '*' })).versions['acme/x']).toBe('1.0.0');
    // A range that only mentions a prerelease does not name one exactly.
    expect(resolve(request(registry, { 'acme/x': '>=1.0.0' })).versions['acme/x']).toBe('1.0.0');
    expect(resolve(request(registry, { 'acme/x': '*' }, { includePrerelease: true })).versions['acme/x']).toBe('2.0.0-beta.2');
    expect(resolve(request(registry, { 'acme/x': '2.0.0-beta.1' })).versions['acme/x']).toBe('2.0.0-beta.1');
    expect(resolve(request(registry, { 'acme/x': '=2.0.0-beta.1' })).versions['acme/x']).toBe('2.0.0-beta.1');
    // Named exactly by a dependency, the prerelease must still satisfy the other dependents.
    const deps: Registry = {
      ...registry,
      'acme/a': [{ version: '1.0.0', dependencies: { 'acme/x': '2.0.0-beta.2' } }],
      'acme/b': [{ version: '1.0.0', dependencies: { 'acme/x': '>=1.0.0' } }],
    };
    expect(resolve(request(deps, { 'acme/a': '*', 'acme/b': '*' })).versions['acme/x']).toBe('2.0.0-beta.2');
    expect(failure(() => resolve(request(registry, { 'acme/x': '^2.0.0-beta.1' }))).code).toBe('E_RESOLVE');
  });

  it('yanked pinned: a yanked version is used only when a range pins it exactly', () => {
    const registry: Registry = {
      'acme/x': [{ version: '1.0.0' }, { version: '1.1.0', status: 'yanked' }],
      'acme/pinner': [{ version: '1.0.0', dependencies: { 'acme/x': '=1.1.0' } }],
    };
    expect(resolve(request(registry, { 'acme/x': '^1.0.0' })).versions['acme/x']).toBe('1.0.0');
    expect(resolve(request(registry, { 'acme/x': '1.1.0' })).versions['acme/x']).toBe('1.1.0');
    expect(resolve(request(registry, { 'acme/x': '^1.0.0', 'acme/pinner': '*' })).versions['acme/x']).toBe('1.1.0');
    const onlyYanked: Registry = { 'acme/y': [{ version: '1.1.0', status: 'yanked' }] };
    const error = failure(() => resolve(request(onlyYanked, { 'acme/y': '^1.0.0' })));
    expect(error.code).toBe('E_RESOLVE');
    expect(error.message).toBe(
      'You asked for acme/y ^1.0.0, but no matching version can be used: acme/y 1.1.0 is yanked and nothing pins it exactly.',
    );
  });

  it('revoked never: not even when pinned exactly', () => {
    const registry: Registry = { 'acme/x': [{ version: '1.0.0' }, { version: '1.1.0', status: 'revoked' }] };
    expect(resolve(request(registry, { 'acme/x': '*' })).versions['acme/x']).toBe('1.0.0');
    const error = failure(() => resolve(request(registry, { 'acme/x': '=1.1.0' })));
    expect(error.code).toBe('E_RESOLVE');
    expect(error.message).toBe('You asked for acme/x =1.1.0, but no matching version can be used: acme/x 1.1.0 is revoked.');
  });

  it('platform: skips versions for other platforms and says why when nothing else fits', () => {
    const registry: Registry = {
      'acme/x': [
        { version: '1.1.0', compat: { platforms: ['linux-x64', 'darwin-arm64'] } },
        { version: '1.2.0', compat: { platforms: ['linux-arm64'] } },
        { version: '1.3.0', compat: { platforms: ['any'] } },
      ],
    };
    expect(resolve(request(registry, { 'acme/x': '<1.3.0' })).versions['acme/x']).toBe('1.1.0');
    expect(resolve(request(registry, { 'acme/x': '*' })).versions['acme/x']).toBe('1.3.0');
    const error = failure(() => resolve(request(registry, { 'acme/x': '1.2.0' })));
    expect(error.code).toBe('E_INCOMPATIBLE');
    expect(error.message).toBe('acme/x 1.2.0 supports linux-arm64 only, and this computer is linux-x64.');
  });

  it('agent: an unlisted agent is incompatible with tools, compatible for skills-only; a listed one must be in range', () => {
    const agents = { codex: '>=1.0.0' };
    const tools: Registry = { 'acme/t': [{ version: '1.0.0', hasTools: true, compat: { agents } }] };
    const skills: Registry = { 'acme/s': [{ version: '1.0.0', hasTools: false, compat: { agents } }] };
    const listed: Registry = {
      'acme/l': [
        { version: '1.0.0', hasTools: true, compat: { agents: { claude: '^1.0.0' } } },
        { version: '2.0.0', hasTools: true, compat: { agents: { claude: '>=2.0.0' } } },
      ],
    };
    const error = failure(() => resolve(request(tools, { 'acme/t': '*' })));
    expect(error.code).toBe('E_INCOMPATIBLE');
    expect(error.message).toBe('acme/t 1.0.0 ships tools and supports codex, not claude.');
    expect(resolve(request(skills, { 'acme/s': '*' })).versions['acme/s']).toBe('1.0.0');
    expect(resolve(request(listed, { 'acme/l': '*' })).versions['acme/l']).toBe('1.0.0');
    const tooOld = failure(() => resolve(request(listed, { 'acme/l': '^2.0.0' })));
    expect(tooOld.code).toBe('E_INCOMPATIBLE');
    expect(tooOld.message).toBe('acme/l 2.0.0 needs claude >=2.0.0, and this agent is version 1.5.0.');
  });

  it('runtime: a missing or too old interpreter excludes the version', () => {
    const registry: Registry = {
      'acme/py': [{ version: '1.0.0', compat: { runtimes: { python: '>=3.10' } } }],
      'acme/js': [
        { version: '1.0.0', compat: { runtimes: { node: '>=20' } } },
        { version: '2.0.0', compat: { runtimes: { node: '>=24' } } },
      ],
    };
    const missing = failure(() => resolve(request(registry, { 'acme/py': '*' })));
    expect(missing.code).toBe('E_INCOMPATIBLE');
    expect(missing.message).toBe('acme/py 1.0.0 needs Python >=3.10, which was not found on this computer; install it and try again.');
    const withPython = { ...HOST, runtimes: { ...HOST.runtimes, python: '3.11.2' } };
    expect(resolve(request(registry, { 'acme/py': '*' }, { host: withPython })).versions['acme/py']).toBe('1.0.0');
    expect(resolve(request(registry, { 'acme/js': '*' })).versions['acme/js']).toBe('1.0.0');
    const old = failure(() => resolve(request(registry, { 'acme/js': '^2.0.0' })));
    expect(old.code).toBe('E_INCOMPATIBLE');
    expect(old.message).toBe('acme/js 2.0.0 needs Node.js >=24, and this computer has Node.js 22.1.0.');
  });

  it('keep installed: an installed version that still satisfies stays; one that no longer does is upgraded', () => {
    const registry: Registry = {
      'acme/lib': [{ version: '1.0.0' }, { version: '1.4.0' }, { version: '2.0.0' }],
      'acme/a': [{ version: '1.0.0', dependencies: { 'acme/lib': '^1.0.0' } }],
      'acme/b': [{ version: '1.0.0', dependencies: { 'acme/lib': '^1.2.0' } }],
    };
    const installed = { 'acme/lib': '1.0.0' };
    expect(resolve(request(registry, { 'acme/a': '*' }, { installed })).versions['acme/lib']).toBe('1.0.0');
    expect(resolve(request(registry, { 'acme/a': '*' })).versions['acme/lib']).toBe('1.4.0');
    expect(resolve(request(registry, { 'acme/a': '*', 'acme/b': '*' }, { installed })).versions['acme/lib']).toBe('1.4.0');
  });

  it('backtracking: gives up the newest version of one capability when it conflicts with another', () => {
    const registry: Registry = {
      'acme/a': [
        { version: '1.0.0', dependencies: { 'acme/lib': '^1.0.0' } },
        { version: '1.1.0', dependencies: { 'acme/lib': '^1.0.0' } },
        { version: '2.0.0', dependencies: { 'acme/lib': '^2.0.0' } },
        { version: '2.1.0', dependencies: { 'acme/lib': '^2.0.0', 'acme/z': '*' } },
      ],
      'acme/b': [{ version: '3.0.0', dependencies: { 'acme/lib': '~1.5.0' } }],
      'acme/lib': [{ version: '1.5.2' }, { version: '1.6.0' }, { version: '2.0.0' }],
      'acme/z': [{ version: '1.0.0' }],
    };
    const result = resolve(request(registry, { 'acme/a': '*', 'acme/b': '*' }));
    expect(result.versions).toEqual({ 'acme/a': '1.1.0', 'acme/b': '3.0.0', 'acme/lib': '1.5.2' });
  });

  it('cycle: a consistent cycle resolves once; an inconsistent one fails instead of looping', () => {
    const registry: Registry = {
      'acme/a': [
        { version: '1.0.0', dependencies: { 'acme/b': '^1.0.0' } },
        { version: '2.0.0', dependencies: { 'acme/b': '^2.0.0' } },
      ],
      'acme/b': [
        { version: '1.0.0', dependencies: { 'acme/a': '^1.0.0' } },
        { version: '2.0.0', dependencies: { 'acme/a': '^1.0.0' } },
      ],
      'acme/self': [{ version: '1.0.0', dependencies: { 'acme/self': '^1.0.0' } }],
    };
    const result = resolve(request(registry, { 'acme/a': '*' }));
    expect(result.versions).toEqual({ 'acme/a': '1.0.0', 'acme/b': '1.0.0' });
    expect(result.order).toEqual(['acme/b', 'acme/a']);
    expect(resolve(request(registry, { 'acme/self': '*' })).versions).toEqual({ 'acme/self': '1.0.0' });
    const error = failure(() => resolve(request(registry, { 'acme/a': '^2.0.0' })));
    expect(error.code).toBe('E_RESOLVE');
    expect(error.message).toBe(
      'You asked for acme/a ^2.0.0, but acme/b 1.0.0 to 2.0.0 needs acme/a ^1.0.0; no version of acme/a satisfies both.',
    );
  });

  it('conflict message wording: names both requirers and the capability no version satisfies', () => {
    const registry: Registry = {
      'acme/a': [
        { version: '1.0.0', dependencies: { 'acme/lib': '^1.0' } },
        { version: '2.0.0', dependencies: { 'acme/lib': '^1.0' } },
        { version: '2.3.0', dependencies: { 'acme/lib': '^1.0' } },
      ],
      'acme/b': [
        { version: '1.0.0', dependencies: { 'acme/lib': '^2.0' } },
        { version: '1.4.0', dependencies: { 'acme/lib': '^2.0' } },
      ],
      'acme/lib': [{ version: '1.0.0' }, { version: '1.9.0' }, { version: '2.0.0' }],
    };
    const error = failure(() => resolve(request(registry, { 'acme/a': '^2.0.0', 'acme/b': '1.x' })));
    expect(error.code).toBe('E_RESOLVE');
    expect(error.message).toBe(
      'acme/a 2.0.0 to 2.3.0 needs acme/lib ^1.0, but acme/b 1.0.0 to 1.4.0 needs acme/lib ^2.0; no version of acme/lib satisfies both.',
    );
    expect(error.details).toEqual({
      target: 'acme/lib',
      constraints: [
        { id: 'acme/lib', range: '^1.0', requiredBy: 'acme/a 2.3.0' },
        { id: 'acme/lib', range: '^2.0', requiredBy: 'acme/b 1.4.0' },
      ],
    });
    const none = failure(() => resolve(request(registry, { 'acme/lib': '^3.0.0' })));
    expect(none.message).toBe(
      'You asked for acme/lib ^3.0.0, but no published version of acme/lib matches (available: 2.0.0, 1.9.0, 1.0.0).',
    );
  });

  it('not found: an id that does not exist at all', () => {
    const registry: Registry = {
      'acme/a': [{ version: '1.0.0', dependencies: { 'acme/ghost': '^1.0.0' } }],
      'acme/b': [{ version: '1.0.0', dependencies: { 'acme/ghost': '^1.0.0' } }, { version: '0.9.0' }],
    };
    const root = failure(() => resolve(request(registry, { 'acme/nope': '*' })));
    expect(root.code).toBe('E_NOT_FOUND');
    expect(root.message).toBe('acme/nope does not exist in the registries this host uses; check the id.');
    const dep = failure(() => resolve(request(registry, { 'acme/a': '*' })));
    expect(dep.code).toBe('E_NOT_FOUND');
    expect(dep.message).toContain('acme/a 1.0.0 needs acme/ghost, which does not exist');
    // A version without the missing dependency is a way through.
    expect(resolve(request(registry, { 'acme/b': '*' })).versions['acme/b']).toBe('0.9.0');
  });

  it('rejects a requested range that is not a semver range', () => {
    const error = failure(() => resolve(request({ 'acme/a': [{ version: '1.0.0' }] }, { 'acme/a': 'latest!' })));
    expect(error.code).toBe('E_USAGE');
  });

  it('too many combinations: bounded work ends in E_RESOLVE instead of hanging', () => {
    // Pigeonhole: 9 capabilities must each take a different "hole" version of 1..8 (each version
    // requires every other capability to avoid it). No learning shortcut exists for this shape.
    const holes = 8;
    const registry: Registry = {};
    const ids = Array.from({ length: holes + 1 }, (_, i) => `acme/p${i}`);
    for (const id of ids) {
      registry[id] = Array.from({ length: holes }, (_, h) => ({
        version: `${h + 1}.0.0`,
        dependencies: Object.fromEntries(ids.filter((o) => o !== id).map((o) => [o, `<${h + 1}.0.0 || >${h + 1}.0.0`])),
      }));
    }
    const started = Date.now();
    const error = failure(() => resolve(request(registry, Object.fromEntries(ids.map((id) => [id, '*'])), { maxSteps: 20_000 })));
    expect(error.code).toBe('E_RESOLVE');
    expect(error.message).toContain('tried too many combinations (more than 20000 versions)');
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
