// spec §11 compat.runtimes: the interpreters (`node --version`, `python3 --version`: child
// processes) are asked only when a version the resolution could choose declares interpreter
// ranges, and their answers are kept in the home (runtimes-probe.json) for later processes.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTree } from '../../../sdk/src/util/fs-tree.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';

let reg: LifecycleRegistry;
const homes: string[] = [];

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  await reg.publishAll([
    { id: 'acme/plain', version: '1.0.0', tool: true },
    { id: 'acme/noded', version: '1.0.0', compat: { agents: { arcotheon: '*' }, runtimes: { node: '>=18' } } },
    { id: 'acme/future', version: '1.0.0', compat: { agents: { arcotheon: '*' }, runtimes: { node: '>=999' } } },
  ]);
});
afterAll(async () => {
  for (const home of homes) await removeTree(home);
  await reg.registry.cleanup();
});

/** An Arcotheon that probes the interpreters itself (the lifecycle registry's options name them). */
async function probing(): Promise<{ home: string; arc: ReturnType<LifecycleRegistry['arcotheon']> }> {
  const home = await reg.newHome();
  homes.push(home);
  return { home, arc: reg.arcotheon(home, { runtimes: undefined }) };
}

const probeRecord = (home: string): string => join(home, 'runtimes-probe.json');

describe('the interpreters are asked only when compat.runtimes can matter', () => {
  it('installs a capability no candidate of which declares runtimes without asking them', async () => {
    const { home, arc } = await probing();
    await arc.install('acme/plain', { approve: () => true });
    expect(await stat(probeRecord(home)).catch(() => null)).toBeNull();
  });

  it('asks them, and remembers the answers, when a candidate declares runtimes', async () => {
    const { home, arc } = await probing();
    await arc.install('acme/noded', { approve: () => true });
    const record = JSON.parse(await readFile(probeRecord(home), 'utf8')) as { runtimes: Record<string, { version: string }> };
    // node is always found (on PATH, else the running one) and is a binary, so it is remembered.
    expect(record.runtimes['node']?.version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('refuses a capability whose interpreter range this computer does not meet', async () => {
    const { arc } = await probing();
    await expect(arc.install('acme/future', { approve: () => true })).rejects.toMatchObject({ code: 'E_INCOMPATIBLE' });
  });
});
