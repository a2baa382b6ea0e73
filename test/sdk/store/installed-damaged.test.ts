// list() with a damaged state.json (DESIGN §6: doctor says which state is left and repairs): the
// capability is listed, marked damaged, with what a repair would do, and the repair does exactly
// that. Real installs of real packages; the damage is what a crash or an editor leaves.
import { chmod, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { adcap } from '../cli/run-cli.js';
import { RunHome } from '../run/run-fixture.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

let h: RunHome;
let arc: Arcotheon;

beforeAll(async () => {
  h = await RunHome.create();
  arc = h.arc({ remotes: [] });
  for (const id of ['acme/one', 'acme/two', 'acme/three']) await h.install({ id }, arc);
});
afterAll(async () => {
  await h.remove();
});

describe('list() with damaged state', () => {
  it('lists every installed capability, the damaged ones marked with what a repair would do; the repair does it', async () => {
    await writeFile(storeOf(arc).home.stateFile('acme/two'), '{"id": "acme/two", "active": ');
    // No intact version left for acme/three: its manifest is gone as well.
    await writeFile(storeOf(arc).home.stateFile('acme/three'), 'not json at all');
    const three = storeOf(arc).home.versionDir('acme/three', '1.0.0');
    await chmod(three, 0o755);
    await rm(join(three, 'capability.json'), { force: true });

    const list = await arc.list();
    expect(list.map((c) => [c.id, c.status])).toEqual([
      ['acme/one', 'unsigned'],
      ['acme/three', 'damaged'],
      ['acme/two', 'damaged'],
    ]);
    expect(list.find((c) => c.id === 'acme/two')).toMatchObject({
      version: '1.0.0',
      grants: [],
      damaged: {
        problem: expect.stringMatching(/^The state file of acme\/two is damaged: /),
        repair: 'a repair rebuilds its state with 1.0.0 active and no grants; grant its permissions again',
      },
    });
    expect(list.find((c) => c.id === 'acme/three')).toMatchObject({
      version: '',
      damaged: { repair: 'a repair removes it (no intact version is left); install it again' },
    });

    // The CLI shows them too, with the command that repairs them.
    const cli = await adcap(['list', '--home', h.home], { cwd: h.root, env: { PATH: process.env.PATH } });
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain('acme/two@1.0.0 [damaged] (a repair rebuilds its state with 1.0.0 active');
    expect(cli.stdout).toContain('run "adcap doctor --fix")');
    const json = await adcap(['list', '--json', '--home', h.home], { cwd: h.root, env: { PATH: process.env.PATH } });
    expect((JSON.parse(json.stdout) as Array<{ id: string; damaged?: unknown }>).find((c) => c.id === 'acme/two')?.damaged).toEqual(
      list.find((c) => c.id === 'acme/two')?.damaged,
    );

    // doctor reports the same two, and the repair does what list() said.
    const report = await arc.doctor({ fix: true, checkRevocations: false });
    expect(report.problems.filter((p) => p.kind === 'damaged-state').map((p) => [p.id, p.fixed])).toEqual([
      ['acme/three', 'removed (no intact version was left); install it again'],
      ['acme/two', 'rebuilt with 1.0.0 active and no grants; grant its permissions again'],
    ]);
    expect((await arc.list()).map((c) => [c.id, c.status, c.damaged])).toEqual([
      ['acme/one', 'unsigned', undefined],
      // Rebuilt: where it came from is not known any more.
      ['acme/two', 'ok', undefined],
    ]);
  });
});
