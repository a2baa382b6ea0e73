// Health's preview says what a repair will do before it is done (docs/ui.md "Destructive actions ... say
// exactly what will change"): each fixable problem carries its action, in a check, a dry run and a
// fix alike; the fix then says what was done.
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';

let reg: LifecycleRegistry;

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  await reg.publishAll([{ id: 'acme/tool', version: '1.0.0', tool: true }]);
});

describe('doctor: the repair of each problem, said before it is done', () => {
  it('a changed file: "Reinstall <file> from the signed package of <id> <version>", then done', async () => {
    const home = await mkdtemp(join(tmpdir(), 'adcap-repair-actions-'));
    const arc = new Arcotheon(reg.options(home));
    await arc.install('acme/tool', { approve: () => true });
    const dir = join(home, 'packages', 'acme', 'tool', '1.0.0');
    await chmod(join(dir, 'tools'), 0o755);
    await chmod(join(dir, 'tools', 'main.mjs'), 0o644);
    await writeFile(join(dir, 'tools', 'main.mjs'), 'process.exit(1);\n');

    const action = 'Reinstall tools/main.mjs from the signed package of acme/tool 1.0.0';
    const checked = await arc.doctor({ checkCache: false, checkRevocations: false });
    expect(checked.problems).toEqual([
      expect.objectContaining({ kind: 'damaged-install', fixable: true, repair: action, message: expect.stringContaining('was changed') }),
    ]);
    const dry = await arc.doctor({ fix: true, dryRun: true, checkCache: false, checkRevocations: false });
    expect(dry.problems).toEqual([expect.objectContaining({ repair: action })]);
    expect(dry.problems[0]?.fixed).toBeUndefined();

    const fixed = await arc.doctor({ fix: true, checkCache: false, checkRevocations: false });
    expect(fixed.problems).toEqual([expect.objectContaining({ repair: action, fixed: expect.stringMatching(/^reinstalled from /) })]);
    expect((await arc.doctor({ checkCache: false, checkRevocations: false })).problems).toEqual([]);
  });
});
