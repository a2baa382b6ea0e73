import { describe, expect, it } from 'vitest';
import { checkCompatibility, hostPlatform } from '../../../sdk/src/resolve/compat.js';
import { HOST } from './fixtures.js';

const base = { id: 'acme/x', version: '1.2.0', hasTools: true };

describe('checkCompatibility (spec §11)', () => {
  it('accepts a version with no compat block, `any`, or the host platform', () => {
    expect(checkCompatibility(base, HOST)).toEqual({ ok: true });
    expect(checkCompatibility({ ...base, compat: { platforms: ['any'] } }, HOST)).toEqual({ ok: true });
    expect(checkCompatibility({ ...base, compat: { platforms: ['darwin-arm64', 'linux-x64'] } }, HOST)).toEqual({ ok: true });
  });

  it('platforms: names what the version supports and what this computer is', () => {
    expect(checkCompatibility({ ...base, compat: { platforms: ['darwin-arm64', 'win32-x64', 'linux-arm64'] } }, HOST)).toEqual({
      ok: false,
      reason: 'acme/x 1.2.0 supports darwin-arm64, win32-x64 and linux-arm64 only, and this computer is linux-x64.',
    });
  });

  it('agents: unlisted host refused with tools, accepted skills-only; listed host range checked', () => {
    const compat = { agents: { codex: '*', cursor: '>=1' } };
    expect(checkCompatibility({ ...base, compat }, HOST)).toEqual({
      ok: false,
      reason: 'acme/x 1.2.0 ships tools and supports codex and cursor, not claude.',
    });
    expect(checkCompatibility({ ...base, hasTools: false, compat }, HOST)).toEqual({ ok: true });
    expect(checkCompatibility({ ...base, compat: { agents: { claude: '^1.2' } } }, HOST)).toEqual({ ok: true });
    const skillsOnly = { ...base, hasTools: false, compat: { agents: { claude: '^2' } } };
    expect(checkCompatibility(skillsOnly, HOST)).toEqual({
      ok: false,
      reason: 'acme/x 1.2.0 needs claude ^2, and this agent is version 1.5.0.',
    });
  });

  it('runtimes: each listed interpreter must be found and in range; loose versions are coerced', () => {
    const host = { ...HOST, runtimes: { node: '22.1.0', python: '3.12' } };
    expect(checkCompatibility({ ...base, compat: { runtimes: { node: '>=22', python: '>=3.11' } } }, host)).toEqual({ ok: true });
    expect(checkCompatibility({ ...base, compat: { runtimes: { python: '>=3.13' } } }, host)).toEqual({
      ok: false,
      reason: 'acme/x 1.2.0 needs Python >=3.13, and this computer has Python 3.12.',
    });
    expect(checkCompatibility({ version: '1.0.0', hasTools: false, compat: { runtimes: { python: '>=3' } } }, HOST)).toEqual({
      ok: false,
      reason: 'this capability 1.0.0 needs Python >=3, which was not found on this computer; install it and try again.',
    });
  });

  it('hostPlatform is os-arch of this process', () => {
    expect(hostPlatform()).toBe(`${process.platform}-${process.arch}`);
  });
});
