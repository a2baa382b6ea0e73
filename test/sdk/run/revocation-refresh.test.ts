// Revocations reach users promptly. runTool and doctor refresh a catalogue last
// checked longer ago than the refresh interval (`limits.refreshAfterMs`, default one hour), fetch the
// package document it now pins, and a version revoked there is refused before it runs. Real
// registry, install, sandboxed tool run; time moves through the `now` option.
import { describe, expect, it } from 'vitest';
import { revokeVersion } from '../../../sdk/src/registry/builder/maintain.js';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import { rejection } from '../../helpers/errors.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';

const HOUR = 60 * 60 * 1000;

describe('a version revoked after install', () => {
  it('is refused by the next run and reported by doctor once the catalogue is older than the refresh interval', async () => {
    const reg = await LifecycleRegistry.create();
    await reg.publishAll([{ id: 'acme/tool', version: '1.0.0', tool: true }]);
    let clock = Date.now();
    const arc = reg.arcotheon(await reg.newHome(), { now: () => new Date(clock) });
    await arc.install('acme/tool', { approve: () => true });
    expect((await runTool(arc, 'acme/tool', 'main', { n: 1 })).output).toEqual({ n: 1 });

    await revokeVersion(reg.registry.dir, 'acme/tool', '1.0.0', 'exfiltrates files');
    await reg.registry.build();
    // Checked a moment ago: the stored catalogue is used as it is, without network.
    expect((await runTool(arc, 'acme/tool', 'main', { n: 2 })).output).toEqual({ n: 2 });

    clock += 2 * HOUR;
    const error = await rejection(runTool(arc, 'acme/tool', 'main', { n: 3 }));
    expect(error).toMatchObject({ code: 'E_REVOKED', details: { reason: 'exfiltrates files' } });
    expect((await arc.doctor({ checkCache: false })).problems).toEqual([expect.objectContaining({ kind: 'revoked', id: 'acme/tool' })]);
  });

  it('with limits.refreshAfterMs 0, every run and doctor look at the registry first', async () => {
    const reg = await LifecycleRegistry.create();
    await reg.publishAll([{ id: 'acme/tool', version: '1.0.0', tool: true }]);
    const home = await reg.newHome();
    const arc = reg.arcotheon(home, { limits: { refreshAfterMs: 0, lockWaitMs: 60_000 } });
    await arc.install('acme/tool', { approve: () => true });
    expect((await arc.doctor({ checkCache: false })).problems).toEqual([]);
    await revokeVersion(reg.registry.dir, 'acme/tool', '1.0.0', 'exfiltrates files');
    await reg.registry.build();
    expect((await arc.doctor({ checkCache: false })).problems.map((p) => p.kind)).toEqual(['revoked']);
    expect((await rejection(runTool(arc, 'acme/tool', 'main', {}))).code).toBe('E_REVOKED');
    // list() reads only what is stored (no network), and now knows too.
    expect((await arc.list())[0]).toMatchObject({ id: 'acme/tool', revoked: 'exfiltrates files' });
  });
});
