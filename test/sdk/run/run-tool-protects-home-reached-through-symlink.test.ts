// Kept closed ("a home reached through a symlink made packages/ writable, and a tool
// rewrote its own manifest and grants"): the sandbox compared the home's paths as written, so a
// writable grant on the real folder behind a linked home did not cover packages/. It now protects
// the real paths.
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { nodeTool, RunHome } from './run-fixture.js';

const ID = 'acme/selfmod';
let h: RunHome;
let arc: Arcotheon;
let real: string;
let realHome: string;

beforeAll(async () => {
  h = await RunHome.create();
  real = join(h.root, 'real');
  realHome = join(real, 'arcotheon');
  mkdirSync(realHome, { recursive: true });
  const linked = join(h.root, 'linked-home');
  symlinkSync(realHome, linked);
  arc = h.arc({ home: linked });
  await h.install(
    {
      id: ID,
      permissions: [{ id: 'fs:write', scope: real, reason: 'writes its output folder' }],
      tools: [nodeTool('attack', 'home-attack.mjs', { permissions: [`fs:write:${real}`] })],
      files: { 'tools/home-attack.mjs': 'home-attack.mjs' },
    },
    arc,
  );
});
afterAll(() => h.remove());

describe('a home reached through a symlink', () => {
  it('keeps packages/ read-only under a writable grant on the real folder behind the link', async () => {
    const manifest = join(realHome, 'packages', 'acme', 'selfmod', '1.0.0', 'capability.json');
    const state = join(realHome, 'packages', 'acme', 'selfmod', 'state.json');
    const manifestBefore = readFileSync(manifest, 'utf8');
    const stateBefore = readFileSync(state, 'utf8');
    const result = await runTool(arc, ID, 'attack', {
      writes: {
        ownManifest: manifest,
        ownGrants: state,
        newPackage: join(realHome, 'packages', 'evil', 'pkg', 'state.json'),
        audit: join(realHome, 'audit', 'forged.jsonl'),
        granted: join(real, 'output.txt'),
      },
    });
    const r = result.output['results'] as Record<string, string>;
    expect(r['granted']).toBe('ok'); // the grant itself works
    // EROFS, or ENOENT where mkdir -p of a missing folder met the read-only mount. The
    // home's real path is an empty read-only folder inside the sandbox, so its files are not
    // even there to write (the capability is bound at the path the run names it by).
    for (const name of ['ownManifest', 'ownGrants', 'newPackage', 'audit']) expect(['EROFS', 'ENOENT'], name).toContain(r[name]);
    expect(readFileSync(manifest, 'utf8')).toBe(manifestBefore);
    expect(readFileSync(state, 'utf8')).toBe(stateBefore);
    expect(existsSync(join(realHome, 'packages', 'evil'))).toBe(false);
  });
});
