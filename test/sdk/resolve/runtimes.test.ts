import { describe, expect, it } from 'vitest';
import { detectRuntimes, parseVersion, probeRuntimes } from '../../../sdk/src/resolve/runtimes.js';

describe('detectRuntimes', () => {
  it('finds node and python3 on this machine and caches the answer', async () => {
    const first = detectRuntimes();
    expect(detectRuntimes()).toBe(first);
    const found = await first;
    expect(found.node).toMatch(/^\d+\.\d+\.\d+$/);
    // The toolchain ships python3 3.11 (contracts: "System: ... python3 3.11").
    expect(found.python).toMatch(/^3\.\d+\.\d+$/);
    expect(detectRuntimes({ refresh: true })).not.toBe(first);
  });

  it('treats missing interpreters as absent and falls back to the running node', async () => {
    const found = await probeRuntimes({ env: { PATH: '/nonexistent' } });
    expect(found).toEqual({ node: process.versions.node });
    const none = await probeRuntimes({ env: { PATH: '/nonexistent' }, execPath: '/nonexistent/node' });
    expect(none).toEqual({});
  });

  it('parses --version lines', () => {
    expect(parseVersion('v22.23.0\n')).toBe('22.23.0');
    expect(parseVersion('Python 3.11.2\n')).toBe('3.11.2');
    expect(parseVersion('Python 3.12')).toBe('3.12.0');
    expect(parseVersion('command not found')).toBeUndefined();
  });
});
