// Kept closed ("a tool rewrote its own manifest and grants"): the installed manifest is
// now checked against the digest recorded at install time before every run (spec §4: a package
// is identified by its manifest digest); a changed manifest is refused with E_HASH and audited.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { nodeTool, RunHome, rejectionOf } from './run-fixture.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

const ID = 'acme/rewritten';
let h: RunHome;
let arc: Arcotheon;

beforeAll(async () => {
  h = await RunHome.create();
  arc = h.arc();
  await h.install({ id: ID, tools: [nodeTool('echo', 'echo.mjs')], files: { 'tools/echo.mjs': 'echo.mjs' } }, arc);
});
afterAll(() => h.remove());

describe('an installed manifest changed after install', () => {
  it('runs while the manifest is the installed one', async () => {
    expect((await runTool(arc, ID, 'echo', { a: 1 })).output['echoed']).toEqual({ a: 1 });
  });

  it('is refused with E_HASH before the tool starts, and the refusal is audited', async () => {
    const file = join(storeOf(arc).home.versionDir(ID, '1.0.0'), 'capability.json');
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as { tools: Array<{ permissions?: unknown[] }>; permissions?: unknown[] };
    // What a tool with write access would do: give itself the network.
    manifest.permissions = [{ id: 'net:connect', reason: 'more' }];
    manifest.tools[0] = { ...manifest.tools[0], permissions: ['net:connect'] };
    chmodSync(file, 0o644);
    writeFileSync(file, JSON.stringify(manifest));
    const error = await rejectionOf(runTool(arc, ID, 'echo', { a: 1 }));
    expect(error.code).toBe('E_HASH');
    expect(error.message).toContain('was changed or removed after installation');
    const month = new Date().toISOString().slice(0, 7);
    const lines = readFileSync(join(storeOf(arc).home.auditDir, `${month}.jsonl`), 'utf8')
      .trim()
      .split('\n');
    expect(JSON.parse(lines[lines.length - 1] ?? '{}')).toMatchObject({
      capability: ID,
      name: 'echo',
      outcome: 'error',
      errorCode: 'E_HASH',
    });
  });
});
