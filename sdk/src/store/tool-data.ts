/**
 * The quota of `storage:data` (spec §7 `context.toolDataDir`; SECURITY.md "Tool data quota"): a
 * tool's data folder in the home is the one place a sandboxed tool can write that outlives its run,
 * so without a limit one tool could fill the disk the home is on. Its size is checked before each
 * run (a tool over its quota does not start) and after it (a run that went over fails with the
 * quota named, and the next run is refused until data is removed or the quota raised).
 */
import type { BigIntStats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { AdcapError } from '../errors.js';

/** The default quota of one tool's data folder: 1 GiB (ArcotheonOptions `limits.toolDataBytes`). */
export const DEFAULT_TOOL_DATA_QUOTA = 1024 * 1024 * 1024;

/**
 * Bytes held by a tool data folder: the larger of each file's length and its allocated blocks (a
 * sparse file counts at its full length), links not followed; 0 when the folder does not exist.
 */
export async function toolDataUsage(dir: string): Promise<number> {
  let total = 0n;
  const walk = async (folder: string): Promise<void> => {
    let names: string[];
    try {
      names = await readdir(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    const infos = await Promise.all(names.map((name) => lstat(join(folder, name), { bigint: true }).catch(() => null)));
    for (const [i, info] of infos.entries()) {
      if (info === null) continue;
      if (info.isDirectory()) await walk(join(folder, names[i]!));
      else total += held(info);
    }
  };
  await walk(dir);
  return Number(total);
}

function held(info: BigIntStats): bigint {
  const allocated = info.blocks * 512n;
  return allocated > info.size ? allocated : info.size;
}

/** "1.5 GiB", "300 MiB", "12 KiB", "800 bytes". */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value >= 10 ? Math.round(value) : Math.round(value * 10) / 10} ${units[unit]}`;
}

/**
 * Refuses a run whose tool data folder holds more than `quota` bytes: before the run (it does not
 * start) or after it (its result is not returned). E_LIMIT names the tool, the size, the quota and
 * the folder, in words that fit every surface; `details.limit` names the option that raises it.
 */
export async function checkToolDataQuota(
  dir: string,
  quota: number,
  what: { id: string; tool: string; when: 'before' | 'after' },
): Promise<number> {
  const used = await toolDataUsage(dir);
  if (used <= quota) return used;
  const verdict =
    what.when === 'before' ? 'so the tool does not run' : 'after this run, so its result is withheld and the tool does not run again';
  throw new AdcapError(
    'E_LIMIT',
    `The data of tool ${what.tool} of ${what.id} (storage:data) holds ${formatBytes(used)}, over its quota of ` +
      `${formatBytes(quota)}, ${verdict} until files are removed from ${dir}.`,
    { details: { id: what.id, tool: what.tool, used, quota, limit: 'toolDataBytes' } },
  );
}
