// SDK change events (store/change-events.ts): a host watching a home hears installed, updated,
// grants-changed, disabled, enabled and removed when a second, real process changes that home, and
// the same when this process does; events are compared by content (a state rewritten unchanged
// fires nothing). Real installs from a real registry, in two processes.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchChanges, type ChangeEvent } from '../../../sdk/src/store/change-events.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { bundleTs, exited, spawnBundle, waitForLine } from '../../helpers/spawn-ts.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

const fixture = join(import.meta.dirname, '../../fixtures/home-change.ts');
let reg: LifecycleRegistry;
let bundle: string;

beforeAll(async () => {
  bundle = await bundleTs(fixture);
  reg = await LifecycleRegistry.create();
  const permissions = [{ id: 'fs:read' as const, scope: 'workspace', reason: 'Reads your files.' }];
  await reg.publishAll([
    { id: 'acme/watched', version: '1.0.0', permissions },
    { id: 'acme/watched', version: '1.1.0', permissions },
  ]);
});
afterAll(() => undefined);

/** Resolves with the events heard until `count` have come (or fails after 15 s). */
function collector(): { events: ChangeEvent[]; next(count: number): Promise<ChangeEvent[]>; listener: (e: ChangeEvent) => void } {
  const events: ChangeEvent[] = [];
  let taken = 0;
  let wake: (() => void) | undefined;
  return {
    events,
    listener: (e) => {
      events.push(e);
      wake?.();
    },
    async next(count) {
      const deadline = Date.now() + 15_000;
      while (events.length - taken < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} more events, have ${JSON.stringify(events.slice(taken))}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 200);
        });
      }
      const out = events.slice(taken, taken + count);
      taken += count;
      return out;
    },
  };
}

describe('watchChanges', () => {
  it('fires typed events for changes another process makes on the same home, and for this one', async () => {
    const home = await reg.newHome();
    const arc = reg.arcotheon(home);
    const heard = collector();
    // pollMs 0: the events must come from the file watch, not from the fallback poll.
    const watcher = watchChanges(arc, heard.listener, { debounceMs: 50, pollMs: 0 });
    await watcher.ready;
    const options = join(home, '..', `${home.split('/').pop()}-options.json`);
    await writeFile(options, JSON.stringify(reg.options(home)));
    const child = spawnBundle(bundle, [options]);
    try {
      await waitForLine(child, (line) => line === 'ready', 60_000);
      const ask = async (line: string): Promise<void> => {
        child.stdin.write(`${line}\n`);
        const got = await waitForLine(child, (l) => l === `did ${line}` || l.startsWith('error '), 60_000);
        if (got !== `did ${line}`) throw new Error(`${line}: ${got}`);
      };
      await ask('install acme/watched@1.0.0');
      expect(await heard.next(1)).toEqual([{ type: 'installed', id: 'acme/watched', version: '1.0.0' }]);
      // An install of a newer version updates it (the exact version above pinned its range).
      await ask('install acme/watched@1.1.0');
      expect(await heard.next(1)).toEqual([{ type: 'updated', id: 'acme/watched', from: '1.0.0', to: '1.1.0' }]);
      await ask('revoke acme/watched fs:read:workspace');
      expect(await heard.next(1)).toEqual([
        { type: 'grants-changed', id: 'acme/watched', grants: [], added: [], removed: ['fs:read:workspace'] },
      ]);
      await ask('disable acme/watched');
      expect(await heard.next(1)).toEqual([{ type: 'disabled', id: 'acme/watched', by: 'user' }]);
      // This process's own change fires the same way.
      await arc.enable('acme/watched');
      expect(await heard.next(1)).toEqual([{ type: 'enabled', id: 'acme/watched' }]);
      await ask('rollback acme/watched');
      expect(await heard.next(1)).toEqual([{ type: 'updated', id: 'acme/watched', from: '1.1.0', to: '1.0.0' }]);
      // Rewritten with the same content: nothing to tell.
      const stateFile = storeOf(arc).home.stateFile('acme/watched');
      const { readFile } = await import('node:fs/promises');
      await writeFile(stateFile, await readFile(stateFile));
      await ask('uninstall acme/watched');
      expect(await heard.next(1)).toEqual([{ type: 'removed', id: 'acme/watched', version: '1.0.0' }]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(heard.events).toHaveLength(7);
    } finally {
      watcher.close();
      child.kill('SIGKILL');
      await exited(child);
    }
  }, 180_000);
});
