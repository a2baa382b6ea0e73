import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock, lockHeld, tryAcquireLock, withLock } from '../../../sdk/src/util/lock.js';
import { exited, spawnTs, waitForLine } from '../../helpers/spawn-ts.js';

const holder = join(import.meta.dirname, '../../fixtures/lock-holder.ts');

async function lockPathInTemp(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), 'adcap-lock-')), 'locks', 'home.lock');
}

describe('home lock', () => {
  it('serialises holders inside one process', async () => {
    const path = await lockPathInTemp();
    const order: string[] = [];
    await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        withLock(path, name, async () => {
          order.push(`${name}+`);
          await new Promise((resolve) => setTimeout(resolve, 30));
          order.push(`${name}-`);
        }),
      ),
    );
    // Every entry is immediately followed by its own exit: no two holders overlapped.
    for (let i = 0; i < order.length; i += 2) expect(order[i]?.[0]).toBe(order[i + 1]?.[0]);
  });

  it('fails with E_LOCKED naming the holder when another process keeps the lock past the wait', async () => {
    const path = await lockPathInTemp();
    const child = await spawnTs(holder, [path]);
    try {
      await waitForLine(child, (line) => line === 'locked');
      await expect(acquireLock(path, 'second', { waitMs: 300 })).rejects.toMatchObject({
        code: 'E_LOCKED',
        message: expect.stringContaining(`process ${child.pid}`),
      });
    } finally {
      child.kill('SIGKILL');
      await exited(child);
    }
  });

  it('waits for a live holder that releases, then takes the lock', async () => {
    const path = await lockPathInTemp();
    const child = await spawnTs(holder, [path, '400']);
    await waitForLine(child, (line) => line === 'locked');
    const started = Date.now();
    const lock = await acquireLock(path, 'second', { waitMs: 10_000 });
    expect(Date.now() - started).toBeGreaterThan(100);
    await lock.release();
    await exited(child);
  });

  it('takes over at once from a holder that was SIGKILLed', async () => {
    const path = await lockPathInTemp();
    const child = await spawnTs(holder, [path]);
    await waitForLine(child, (line) => line === 'locked');
    child.kill('SIGKILL');
    await exited(child);
    const started = Date.now();
    const lock = await acquireLock(path, 'recovery', { waitMs: 5_000, staleMs: 60_000 });
    // Not the heartbeat timeout: the dead pid alone marks the lock stale.
    expect(Date.now() - started).toBeLessThan(2_000);
    await lock.release();
    expect(await readdir(join(path, '..'))).toEqual([]);
  });

  it('a lock taken with synchronous calls (syncFs) excludes and waits for the same holders as any other', async () => {
    const path = await lockPathInTemp();
    // Held by this process with syncFs: another process's acquireLock and this one's tryAcquireLock wait.
    const mine = await acquireLock(path, 'sync holder', { syncFs: true });
    expect(mine.owner.pid).toBe(process.pid);
    expect(await lockHeld(path)).toBe(true);
    expect(await tryAcquireLock(path, 'second')).toBeNull();
    const child = await spawnTs(holder, [path, '200']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(child.exitCode).toBeNull(); // still waiting for the lock
    await mine.release();
    await waitForLine(child, (line) => line === 'released');
    await exited(child);
    // A live holder in another process: syncFs waits for it, like any acquirer.
    const other = await spawnTs(holder, [path, '400']);
    await waitForLine(other, (line) => line === 'locked');
    const started = Date.now();
    const second = await acquireLock(path, 'sync after live holder', { waitMs: 10_000, syncFs: true });
    expect(Date.now() - started).toBeGreaterThan(100);
    await second.release();
    await exited(other);
    // A SIGKILLed holder: taken over at once.
    const dead = await spawnTs(holder, [path]);
    await waitForLine(dead, (line) => line === 'locked');
    dead.kill('SIGKILL');
    await exited(dead);
    const recovered = await acquireLock(path, 'sync recovery', { waitMs: 5_000, staleMs: 60_000, syncFs: true });
    await recovered.release();
    expect(await readdir(join(path, '..'))).toEqual([]);
  });

  it("tryAcquireLock does not wait for a live holder (null) and takes a dead one's lock at once; lockHeld agrees", async () => {
    const path = await lockPathInTemp();
    expect(await lockHeld(path)).toBe(false);
    const child = await spawnTs(holder, [path]);
    await waitForLine(child, (line) => line === 'locked');
    expect(await lockHeld(path)).toBe(true);
    const started = Date.now();
    expect(await tryAcquireLock(path, 'second')).toBeNull();
    expect(Date.now() - started).toBeLessThan(2_000);
    child.kill('SIGKILL');
    await exited(child);
    expect(await lockHeld(path, { staleMs: 60_000 })).toBe(false);
    const lock = await tryAcquireLock(path, 'recovery', { staleMs: 60_000 });
    expect(lock?.owner.pid).toBe(process.pid);
    expect(await lockHeld(path)).toBe(true);
    await lock?.release();
    expect(await lockHeld(path)).toBe(false);
    expect(await readdir(join(path, '..'))).toEqual([]);
  });
});
