// Hostile MCP Bundles: the zip reader applies the tar reader's rules (spec §2,
// DESIGN §4) to archives made by a low-level writer, one attack each.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readZipEntries } from '../../../../sdk/src/format/mcpb/zip-reader.js';
import { rejection } from '../../../helpers/errors.js';
import { deflatedZeros, writeZip, type ZipEntrySpec } from '../../../helpers/zip-writer.js';

let dir: string;
/** 1 GiB of zeros deflated once for both bomb tests (about 1 MiB, ~10 s on this machine). */
let gibibyte: Promise<{ bytes: Buffer; size: number; crc: number }> | undefined;
const bombOfOneGiB = (): Promise<{ bytes: Buffer; size: number; crc: number }> => (gibibyte ??= deflatedZeros(1024));
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'zip-reader-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function zipFile(name: string, entries: ZipEntrySpec[]): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, writeZip(entries));
  return file;
}

describe('readZipEntries', () => {
  it('reads regular files, marks executables, skips directory entries', async () => {
    const file = await zipFile('ok.mcpb', [
      { name: 'manifest.json', data: '{}' },
      { name: 'server/', mode: 0o040755 },
      { name: 'server/run', data: '#!/bin/sh\n', mode: 0o100755 },
    ]);
    const entries = await readZipEntries(file);
    expect(entries.map((e) => [e.path, e.data.toString(), e.executable])).toEqual([
      ['manifest.json', '{}', false],
      ['server/run', '#!/bin/sh\n', true],
    ]);
  });

  it('zip slip: a path with .. is refused (E_PATH)', async () => {
    const file = await zipFile('slip.mcpb', [{ name: '../../evil.sh', data: 'x' }]);
    const error = await rejection(readZipEntries(file));
    expect(error.code).toBe('E_PATH');
    expect(error.message).toContain('".." segment');
  });

  it('zip slip: an absolute path is refused (E_PATH)', async () => {
    const file = await zipFile('abs.mcpb', [{ name: '/etc/cron.d/evil', data: 'x' }]);
    expect((await rejection(readZipEntries(file))).code).toBe('E_PATH');
  });

  it('zip slip: a backslash path is refused (E_PATH)', async () => {
    const file = await zipFile('backslash.mcpb', [{ name: '..\\..\\evil', data: 'x' }]);
    expect((await rejection(readZipEntries(file))).code).toBe('E_PATH');
  });

  it('symlink entries are refused (E_ENTRY_TYPE)', async () => {
    const file = await zipFile('link.mcpb', [{ name: 'server/index.js', data: '/etc/passwd', mode: 0o120777 }]);
    const error = await rejection(readZipEntries(file));
    expect(error.code).toBe('E_ENTRY_TYPE');
    expect(error.message).toContain('symbolic link');
  });

  it('the same path twice is refused (E_DUPLICATE)', async () => {
    const file = await zipFile('dup.mcpb', [
      { name: 'a.txt', data: '1' },
      { name: 'a.txt', data: '2' },
    ]);
    expect((await rejection(readZipEntries(file))).code).toBe('E_DUPLICATE');
  });

  it('too many entries are refused before reading (E_LIMIT)', async () => {
    const file = await zipFile('many.mcpb', [
      { name: 'a', data: '1' },
      { name: 'b', data: '2' },
      { name: 'c', data: '3' },
    ]);
    expect((await rejection(readZipEntries(file, { maxEntries: 2 }))).code).toBe('E_LIMIT');
  });

  it('a 1 GiB-inflating entry that says so is refused before inflating (E_LIMIT)', async () => {
    const bomb = await bombOfOneGiB();
    expect(bomb.bytes.length).toBeLessThan(2 * 1024 * 1024);
    const file = await zipFile('bomb.mcpb', [{ name: 'server/bomb.bin', deflated: bomb }]);
    const started = Date.now();
    const error = await rejection(readZipEntries(file));
    expect(error.code).toBe('E_LIMIT');
    expect(Date.now() - started).toBeLessThan(2_000);
  }, 120_000);

  it('a 1 GiB-inflating entry that claims 1 KiB is stopped by counting the inflated bytes (E_LIMIT or a size mismatch)', async () => {
    const bomb = await bombOfOneGiB();
    const file = await zipFile('lying-bomb.mcpb', [{ name: 'server/bomb.bin', deflated: { ...bomb, size: 1024 } }]);
    const before = process.memoryUsage().rss;
    const error = await rejection(readZipEntries(file));
    expect(['E_LIMIT', 'E_TAR']).toContain(error.code);
    // Stopped early: nowhere near 1 GiB was held.
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 * 1024);
  }, 120_000);

  it('the inflated-bytes counter stops an entry past the expanded limit even when its header agrees with the data', async () => {
    const bomb = await deflatedZeros(8);
    const file = await zipFile('eight.mcpb', [{ name: 'big.bin', deflated: bomb }]);
    expect((await rejection(readZipEntries(file, { maxExpandedBytes: 4 * 1024 * 1024 }))).code).toBe('E_LIMIT');
  }, 60_000);

  it('a file that is not a zip is E_TAR with a sentence', async () => {
    const file = join(dir, 'not.mcpb');
    await writeFile(file, 'not a zip at all');
    const error = await rejection(readZipEntries(file));
    expect(error.code).toBe('E_TAR');
    expect(error.message).toContain('is not a readable zip archive');
  });
});
