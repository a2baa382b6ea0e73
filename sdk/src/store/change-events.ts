/**
 * Change events of a home (DESIGN §6: each installed capability's state lives in
 * packages/<pub>/<name>/state.json, written atomically by whichever process changes it). The SDK
 * watches those files (fs.watch on the packages folder and each package's folder, plus a slow poll
 * for a watch the platform missed), waits until they have been quiet for a
 * moment (debounced), reads every state again and compares it by content with what it read before,
 * so a change made by another process on the same home (adcap in a terminal, a second app) fires
 * the same events as one made here. The events are what a host redraws on: installed, updated
 * (an update or a rollback: the active version changed), removed, enabled, disabled, grants changed.
 */
import { watch, type FSWatcher } from 'node:fs';
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Arcotheon } from './arcotheon.js';
import { packageIdsOnDisk, type PackageState } from './state.js';
import { storeOf } from './store-of.js';

/** One change of the installed capabilities of a home. */
export type ChangeEvent =
  | { type: 'installed'; id: string; version: string }
  | { type: 'updated'; id: string; from: string; to: string }
  | { type: 'removed'; id: string; version: string }
  | { type: 'enabled'; id: string }
  | { type: 'disabled'; id: string; by: 'user' | 'policy' }
  | { type: 'grants-changed'; id: string; grants: string[]; added: string[]; removed: string[] };

/** Options of `watchChanges()`. */
export interface WatchChangesOptions {
  /** How long the state files must be quiet before they are read again (default 100 ms). */
  debounceMs?: number;
  /** The states are also read this often, for changes a file watch missed (default 2000 ms; 0: never). */
  pollMs?: number;
  /** Called when reading the states fails (the watch goes on); without it, such failures are ignored. */
  onError?: (error: unknown) => void;
}

/** A running watch: `ready` resolves once the first snapshot is taken; `close()` stops it. */
export interface ChangeWatcher {
  /** Resolves once the first snapshot is taken: changes after it are reported. */
  readonly ready: Promise<void>;
  /** Stops watching: no new read starts (one already under way may still report what it found). */
  close(): void;
}

interface Seen {
  active: string;
  grants: string[];
  disabled: PackageState['disabled'];
}

/**
 * Calls `listener` with every change of the capabilities installed in `arc`'s home, by this process
 * or another one. Events come in a stable order per read (by id, then installed/updated/removed
 * before enabled/disabled before grants-changed). A listener that throws does not stop the watch.
 * E_USAGE when `arc` is not an `Arcotheon`.
 */
export function watchChanges(arc: Arcotheon, listener: (event: ChangeEvent) => void, options: WatchChangesOptions = {}): ChangeWatcher {
  const home = storeOf(arc, 'watchChanges()').home;
  const debounceMs = options.debounceMs ?? 100;
  let seen = new Map<string, Seen>();
  // Per folder its watch and inode: a folder replaced by a rename (an install moves a package
  // folder into place) is watched again.
  const watchers = new Map<string, { watcher: FSWatcher; ino: number }>();
  let timer: NodeJS.Timeout | undefined;
  let poll: NodeJS.Timeout | undefined;
  let reading: Promise<void> = Promise.resolve();
  let closed = false;

  const read = async (): Promise<Map<string, Seen>> => {
    const now = new Map<string, Seen>();
    for (const id of await packageIdsOnDisk(home, { withState: true })) {
      const text = await readFile(home.stateFile(id), 'utf8').catch(() => null);
      const state = parse(text);
      // A state being replaced, or damaged, keeps what was seen (doctor reports damage).
      const before = seen.get(id);
      if (state !== null) now.set(id, { active: state.active, grants: [...state.grants].sort(), disabled: state.disabled });
      else if (before !== undefined && text !== null) now.set(id, before);
    }
    return now;
  };

  const changed = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(refresh, debounceMs);
  };

  /** Watches the packages folder, each publisher folder and each package folder (where state.json is). */
  const watchFolders = async (): Promise<void> => {
    const folders = [home.packagesDir];
    for (const publisher of await readdir(home.packagesDir).catch(() => [] as string[])) {
      const dir = join(home.packagesDir, publisher);
      folders.push(dir);
      for (const name of await readdir(dir).catch(() => [] as string[])) folders.push(join(dir, name));
    }
    for (const [dir, entry] of watchers) {
      const ino = folders.includes(dir)
        ? await stat(dir).then(
            (s) => s.ino,
            () => -1,
          )
        : -1;
      if (ino !== entry.ino) {
        entry.watcher.close();
        watchers.delete(dir);
      }
    }
    for (const dir of folders) {
      if (closed || watchers.has(dir)) continue;
      try {
        const ino = (await stat(dir)).ino;
        const watcher = watch(dir, { persistent: false }, changed);
        watcher.on('error', () => {
          watcher.close();
          watchers.delete(dir);
        });
        watchers.set(dir, { watcher, ino });
      } catch {
        // Gone already, or not a folder: the next read sees it.
      }
    }
  };

  const refresh = (): void => {
    reading = reading.then(async () => {
      if (closed) return;
      try {
        await watchFolders();
        const now = await read();
        const events = diff(seen, now);
        seen = now;
        for (const event of events) {
          try {
            listener(event);
          } catch {
            // A listener's failure is the host's; the watch goes on.
          }
        }
      } catch (error) {
        options.onError?.(error);
      }
    });
  };

  const ready = (async () => {
    await mkdir(home.packagesDir, { recursive: true });
    await watchFolders();
    seen = await read();
    if (closed) return;
    const pollMs = options.pollMs ?? 2000;
    if (pollMs > 0) {
      poll = setInterval(refresh, pollMs);
      poll.unref();
    }
  })();

  return {
    ready,
    close(): void {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      if (poll !== undefined) clearInterval(poll);
      for (const entry of watchers.values()) entry.watcher.close();
      watchers.clear();
    },
  };
}

function parse(text: string | null): PackageState | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<PackageState> | null;
    if (typeof value?.active !== 'string' || !Array.isArray(value.grants)) return null;
    return value as PackageState;
  } catch {
    return null;
  }
}

/** The events that turn `before` into `after`. */
function diff(before: Map<string, Seen>, after: Map<string, Seen>): ChangeEvent[] {
  const events: ChangeEvent[] = [];
  const ids = [...new Set([...before.keys(), ...after.keys()])].sort();
  for (const id of ids) {
    const b = before.get(id);
    const a = after.get(id);
    if (a === undefined) {
      if (b !== undefined) events.push({ type: 'removed', id, version: b.active });
      continue;
    }
    if (b === undefined) {
      events.push({ type: 'installed', id, version: a.active });
      if (a.disabled !== undefined) events.push({ type: 'disabled', id, by: a.disabled.by });
      continue;
    }
    if (a.active !== b.active) events.push({ type: 'updated', id, from: b.active, to: a.active });
    if (a.disabled === undefined && b.disabled !== undefined) events.push({ type: 'enabled', id });
    if (a.disabled !== undefined && b.disabled === undefined) events.push({ type: 'disabled', id, by: a.disabled.by });
    const added = a.grants.filter((g) => !b.grants.includes(g));
    const removed = b.grants.filter((g) => !a.grants.includes(g));
    if (added.length > 0 || removed.length > 0) events.push({ type: 'grants-changed', id, grants: a.grants, added, removed });
  }
  return events;
}
