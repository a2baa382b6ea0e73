/** spec §2 writer rules and DESIGN §4: deterministic bytes, a header tar(1) reads cleanly. */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeArchive, type ArchiveEntrySource } from '../../../../sdk/src/format/archive/writer.js';
import { sha256 } from '../../../helpers/tar-writer.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-writer-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const path240 = `${'p'.repeat(100)}/${'q'.repeat(54)}/${'n'.repeat(84)}`;
function sampleEntries(): ArchiveEntrySource[] {
  const big = Buffer.alloc(300_000, 'big file ');
  return [
    { path: 'capability.json', size: 2, executable: false, open: () => Buffer.from('{}') },
    { path: 'bin/tool', size: 5, executable: true, open: () => Readable.from([Buffer.from('#!/b'), Buffer.from('\n')]) },
    { path: 'data/big.txt', size: big.length, executable: false, open: () => Promise.resolve(big) },
    { path: 'empty', size: 0, executable: false, open: () => Buffer.alloc(0) },
    { path: path240, size: 4, executable: false, open: () => Buffer.from('long') },
  ];
}

describe('writeArchive', () => {
  it('two builds of the same entries are byte-identical (spec §2)', async () => {
    const a = await writeArchive(sampleEntries(), join(work, 'a.adcap'));
    const b = await writeArchive(sampleEntries(), join(work, 'b.adcap'));
    expect(a).toEqual(b);
    const bytes = await readFile(join(work, 'a.adcap'));
    expect((await readFile(join(work, 'b.adcap'))).equals(bytes)).toBe(true);
    expect(sha256(bytes)).toBe(a.sha256);
    expect(bytes.length).toBe(a.size);
  });

  it('writes the gzip header of DESIGN §4: FLG 0, MTIME 0, OS 255', async () => {
    await writeArchive(sampleEntries(), join(work, 'h.adcap'));
    const header = (await readFile(join(work, 'h.adcap'))).subarray(0, 10);
    expect([...header]).toEqual([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
  });

  it('GNU tar lists the archive cleanly with zero owners, times and 0644/0755 modes', async () => {
    const file = join(work, 'list.adcap');
    await writeArchive(sampleEntries(), file);
    const listing = spawnSync('tar', ['-tzvf', file], { encoding: 'utf8' });
    expect(listing.status).toBe(0);
    expect(listing.stderr).toBe('');
    const lines = listing.stdout.trim().split('\n');
    expect(lines.map((line) => line.split(/\s+/).slice(5).join(' '))).toEqual([
      'capability.json',
      'bin/tool',
      'data/big.txt',
      'empty',
      path240,
    ]);
    for (const line of lines) expect(line).toMatch(/^-rw[-x]r-[-x]r-[-x] 0\/0 +\d+ 1970-01-01 00:00 /);
    expect(lines[1]).toMatch(/^-rwxr-xr-x/);
    expect(lines[0]).toMatch(/^-rw-r--r--/);
    // tar extracts the same bytes, including the 240-byte path stored with the ustar prefix field.
    const out = await mkdtemp(join(work, 'x-'));
    execFileSync('tar', ['-xzf', file, '-C', out]);
    expect(await readFile(join(out, path240), 'utf8')).toBe('long');
    expect((await readFile(join(out, 'data/big.txt'))).length).toBe(300_000);
  });

  it('deflates pieces in parallel into one stream that gzip and tar read (entries over several 1 MiB pieces)', async () => {
    const text = Buffer.from(Array.from({ length: 150_000 }, (_, i) => `line ${i} ${(i * 7919) % 104729}\n`).join(''));
    expect(text.length).toBeGreaterThan(2 * 1024 * 1024);
    const entries = (): ArchiveEntrySource[] => [
      { path: 'capability.json', size: 2, executable: false, open: () => Buffer.from('{}') },
      { path: 'big.txt', size: text.length, executable: false, open: () => Readable.from([text.subarray(0, 1000), text.subarray(1000)]) },
    ];
    const a = await writeArchive(entries(), join(work, 'multi-a.adcap'));
    const b = await writeArchive(entries(), join(work, 'multi-b.adcap'));
    expect(a.sha256).toBe(b.sha256);
    expect(a.size).toBeLessThan(text.length / 2);
    expect(spawnSync('gzip', ['-t', join(work, 'multi-a.adcap')]).status).toBe(0);
    const out = await mkdtemp(join(work, 'multi-'));
    execFileSync('tar', ['-xzf', join(work, 'multi-a.adcap'), '-C', out]);
    expect((await readFile(join(out, 'big.txt'))).equals(text)).toBe(true);
  });

  it('writes to a stream as well as to a path, with the same bytes', async () => {
    const sink = new PassThrough();
    const chunks: Buffer[] = [];
    sink.on('data', (c: Buffer) => chunks.push(c));
    const result = await writeArchive(sampleEntries(), sink);
    await writeArchive(sampleEntries(), join(work, 's.adcap'));
    expect(Buffer.concat(chunks).equals(await readFile(join(work, 's.adcap')))).toBe(true);
    expect(result.size).toBe(Buffer.concat(chunks).length);
  });

  it('refuses a path that breaks spec §2 (E_PATH) and leaves no file behind', async () => {
    const entries: ArchiveEntrySource[] = [{ path: '../evil', size: 1, executable: false, open: () => Buffer.from('x') }];
    await expect(writeArchive(entries, join(work, 'bad.adcap'))).rejects.toMatchObject({ code: 'E_PATH' });
    await expect(readFile(join(work, 'bad.adcap'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a path whose last segment does not fit the ustar name field (E_PATH)', async () => {
    const entries: ArchiveEntrySource[] = [{ path: `dir/${'x'.repeat(101)}`, size: 1, executable: false, open: () => Buffer.from('x') }];
    await expect(writeArchive(entries, join(work, 'seg.adcap'))).rejects.toMatchObject({ code: 'E_PATH' });
  });

  it('refuses an entry whose content is not its declared size (E_IO)', async () => {
    const entries: ArchiveEntrySource[] = [{ path: 'a', size: 10, executable: false, open: () => Readable.from([Buffer.from('short')]) }];
    await expect(writeArchive(entries, join(work, 'short.adcap'))).rejects.toMatchObject({ code: 'E_IO' });
  });
});
