/**
 * Every package we write lists identically under three independent readers: ours
 * (sdk/src/format/archive, which refuses what spec §2 forbids), tar-stream (the design card's tar
 * library) and GNU tar (`tar -tvzf` and a real extraction). Names and their order, sizes, modes,
 * types and the SHA-256 of every entry's contents must agree, for the package builder's output over
 * every example capability, the archives of the example registry, and a generated package with many
 * files, paths up to the 240-byte limit, empty files, nested folders and executables.
 *
 * tar-stream is not our reader because it applies PAX and GNU long-name headers silently; the last
 * test shows it doing so on an archive our reader refuses (spec §2, E_ENTRY_TYPE).
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ENTRY_PATH_BYTES } from '../../../../sdk/src/format/archive/entry-path.js';
import { readArchive } from '../../../../sdk/src/format/archive/reader.js';
import type { ArchiveEntryHeader } from '../../../../sdk/src/format/archive/tar-parser.js';
import { buildPackage } from '../../../../sdk/src/format/package-build.js';
import { generateKey } from '../../../../sdk/src/trust/keys.js';
import { buildSignedPackage } from '../../../../sdk/src/trust/package-signature.js';
import { gzipBytes, rawTar } from '../../../helpers/tar-writer.js';

const repo = join(import.meta.dirname, '..', '..', '..', '..');
const EXAMPLES = join(repo, 'examples');
const REGISTRY_BLOBS = join(repo, 'examples', 'registry', 'v1', 'blobs', 'sha256');

/** One entry as a reader sees it. Our reader reports the execute bit, not the whole mode. */
interface Listed {
  path: string;
  size: number;
  type: string;
  /** Permission bits, or null where the reader does not report them (ours). */
  mode: number | null;
  executable: boolean;
  /** SHA-256 of the contents, or null where the reader does not read them (`tar -tv`). */
  sha256: string | null;
}

const hash = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/** Our reader (the one every install and verify uses). */
async function listOurs(file: string): Promise<Listed[]> {
  const out: Listed[] = [];
  let current: { header: ArchiveEntryHeader; digest: ReturnType<typeof createHash> } | undefined;
  await readArchive(file, {
    entry: (header) => {
      current = { header, digest: createHash('sha256') };
    },
    data: (chunk) => {
      current?.digest.update(chunk);
    },
    entryEnd: () => {
      if (current === undefined) throw new Error('entryEnd without entry');
      // The reader delivers regular files only (spec §2); anything else is refused before this.
      out.push({
        path: current.header.path,
        size: current.header.size,
        type: 'file',
        mode: null,
        executable: current.header.executable,
        sha256: current.digest.digest('hex'),
      });
    },
  });
  return out;
}

/**
 * tar-stream's extractor over node's gunzip. `written` also checks the fixed metadata our writer
 * puts in every header (DESIGN §4: mtime, uid and gid zero, no owner names).
 */
async function listTarStream(file: string, written = true): Promise<Listed[]> {
  const out: Listed[] = [];
  const extract = tar.extract();
  const feeding = pipeline(Readable.from(await readFile(file)), zlib.createGunzip(), extract);
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    const { header } = entry;
    const data = Buffer.concat(chunks);
    expect(data.length, header.name).toBe(header.size);
    if (written)
      expect([header.uid, header.gid, header.mtime?.getTime(), header.uname, header.gname], header.name).toEqual([0, 0, 0, '', '']);
    out.push({
      path: header.name,
      size: header.size ?? -1,
      type: header.type ?? 'unknown',
      mode: header.mode ?? -1,
      executable: ((header.mode ?? 0) & 0o111) !== 0,
      sha256: hash(data),
    });
  }
  await feeding;
  return out;
}

const TYPE_CHARS: Readonly<Record<string, string>> = {
  '-': 'file',
  d: 'directory',
  l: 'symlink',
  h: 'link',
  c: 'character-device',
  b: 'block-device',
  p: 'fifo',
};

function modeOf(permissions: string): number {
  let mode = 0;
  for (let i = 0; i < 9; i++) if (permissions[i] !== '-') mode |= 1 << (8 - i);
  return mode;
}

function gnuTar(args: string[]): string {
  const result = spawnSync('tar', args, { encoding: 'utf8', env: { ...process.env, TZ: 'UTC', LC_ALL: 'C' }, maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`tar ${args.join(' ')} exited ${String(result.status)}: ${result.stderr}`);
  // No warning either: a lone zero block, an unknown header keyword, a timestamp in the future.
  expect(result.stderr, `tar ${args.join(' ')}`).toBe('');
  return result.stdout;
}

/** `tar -tvzf`: type, mode, owner, size and name of each entry, in archive order. */
function listGnuTar(file: string): Listed[] {
  const lines = gnuTar(['--numeric-owner', '-tvzf', file])
    .split('\n')
    .filter((line) => line !== '');
  return lines.map((line) => {
    const match = /^(.)([rwxsStT-]{9}) (\d+)\/(\d+) +(\d+) (\d{4}-\d{2}-\d{2} \d{2}:\d{2}) (.*)$/.exec(line);
    if (match === null) throw new Error(`unexpected tar -tv line: ${line}`);
    const [, type, permissions, uid, gid, size, date, path] = match as unknown as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    expect([uid, gid, date], path).toEqual(['0', '0', '1970-01-01 00:00']);
    const mode = modeOf(permissions);
    return { path, size: Number(size), type: TYPE_CHARS[type] ?? type, mode, executable: (mode & 0o111) !== 0, sha256: null };
  });
}

/** `tar -xzf` into an empty folder: what lands on disk, file by file (folders are implied by paths). */
async function listGnuExtract(file: string, into: string): Promise<Listed[]> {
  await mkdir(into, { recursive: true });
  gnuTar(['--no-same-owner', '--preserve-permissions', '-xzf', file, '-C', into]);
  const out: Listed[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const name of await readdir(dir)) {
      const path = join(dir, name);
      const info = await lstat(path);
      if (info.isDirectory()) await walk(path);
      else {
        const mode = info.mode & 0o7777;
        out.push({
          path: relative(into, path).split('\\').join('/'),
          size: info.size,
          type: info.isFile() ? 'file' : 'other',
          mode,
          executable: (mode & 0o111) !== 0,
          sha256: hash(await readFile(path)),
        });
      }
    }
  };
  await walk(into);
  return out;
}

const byPath = (a: Listed, b: Listed): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
const without = (entries: Listed[], fields: ('mode' | 'sha256')[]): Partial<Listed>[] =>
  entries.map((e) => Object.fromEntries(Object.entries(e).filter(([key]) => !fields.includes(key as 'mode' | 'sha256'))));

let work: string;
let extractions = 0;

/** Lists `file` with all four and checks they agree; returns our listing. */
async function expectSameListing(file: string): Promise<Listed[]> {
  const ours = await listOurs(file);
  const stream = await listTarStream(file);
  const gnu = listGnuTar(file);
  const extracted = await listGnuExtract(file, join(work, `x${extractions++}`));

  expect(ours.length).toBeGreaterThan(0);
  // Order, names, sizes, types, execute bits and contents: ours and tar-stream.
  expect(without(stream, ['mode'])).toEqual(without(ours, ['mode']));
  // The whole mode: tar-stream and GNU tar, and only the two modes of DESIGN §4.
  expect(gnu.map((e) => [e.path, e.size, e.type, e.mode])).toEqual(stream.map((e) => [e.path, e.size, e.type, e.mode]));
  for (const entry of stream) expect(entry.mode, entry.path).toBe(entry.executable ? 0o755 : 0o644);
  // What GNU tar writes to disk: the same files with the same modes and contents.
  expect([...extracted].sort(byPath)).toEqual([...stream].sort(byPath));
  return ours;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-readers-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('our reader, tar-stream and GNU tar list every package we write identically', () => {
  it('the package builder over every example capability, signed (SIGNATURE.json last)', async () => {
    const key = generateKey();
    const examples = (await readdir(EXAMPLES, { withFileTypes: true })).filter(
      (d) => d.isDirectory() && existsSync(join(EXAMPLES, d.name, 'capability.json')),
    );
    expect(examples.length).toBeGreaterThanOrEqual(8);
    for (const example of examples) {
      const out = join(work, `${example.name}.adcap`);
      await buildSignedPackage(join(EXAMPLES, example.name), { out, keys: [key] });
      const listed = await expectSameListing(out);
      expect(listed[0]?.path, example.name).toBe('capability.json');
      expect(listed.at(-1)?.path, example.name).toBe('SIGNATURE.json');
    }
  }, 120_000);

  it('the archives published in the example registry (npm run examples)', async () => {
    if (!existsSync(REGISTRY_BLOBS)) throw new Error('examples/registry is missing: run "npm run examples" first');
    const archives = (await readdir(REGISTRY_BLOBS)).filter((name) => name.endsWith('.adcap'));
    expect(archives.length).toBeGreaterThanOrEqual(8);
    for (const name of archives) await expectSameListing(join(REGISTRY_BLOBS, name));
  }, 120_000);

  it('a generated package: many files, paths up to 240 bytes, empty files, nested folders, executables, a multi-chunk file', async () => {
    const src = join(work, 'generated-src');
    const files = new Map<string, Buffer>();
    const add = (path: string, data: Buffer | string): void => {
      files.set(path, Buffer.from(data));
    };
    for (let i = 0; i < 600; i++) add(`data/set-${i % 7}/part-${Math.floor(i / 7)}/item-${i}.txt`, `item ${i}\n`.repeat(1 + (i % 13)));
    for (let i = 0; i < 40; i++) add(`empty/${i % 3}/e${i}.txt`, '');
    add('a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/deep.txt', 'deep\n');
    // Printable ASCII other than letters (spec §2), and the ustar split points: a 100-byte path
    // (name field only), 101 bytes (prefix and name) and exactly the 240-byte limit.
    add('odd names/with space, comma & (parens) ~tilde #hash.md', 'odd\n');
    add(`${'n'.repeat(96)}.txt`, 'exactly 100\n');
    add(`x/${'n'.repeat(95)}.txt`, 'exactly 101\n');
    // The longest a ustar header holds without PAX: a 139-byte prefix and a 100-byte last part.
    const longDir = `long/${'d'.repeat(60)}/${'e'.repeat(73)}`;
    const longPath = `${longDir}/${'f'.repeat(MAX_ENTRY_PATH_BYTES - longDir.length - 1 - 4)}.bin`;
    expect(Buffer.byteLength(longPath)).toBe(MAX_ENTRY_PATH_BYTES);
    add(longPath, randomBytes(1000));
    // Larger than the builder's whole-read threshold and the writer's 1 MiB deflate chunks.
    add('blobs/random.bin', randomBytes(3 * 1024 * 1024 + 123));
    for (const [path, data] of files) {
      await mkdir(join(src, path, '..'), { recursive: true });
      await writeFile(join(src, path), data);
    }
    await mkdir(join(src, 'bin'), { recursive: true });
    for (const name of ['run.sh', 'nested/tool']) {
      await mkdir(join(src, 'bin', name, '..'), { recursive: true });
      await writeFile(join(src, 'bin', name), '#!/bin/sh\necho ok\n');
      await chmod(join(src, 'bin', name), 0o755);
    }
    await writeFile(
      join(src, 'capability.json'),
      JSON.stringify({
        adcap: '1.0',
        id: 'acme/generated',
        version: '1.0.0',
        name: 'Generated',
        summary: 'Many files, long paths, empty files, nested folders.',
      }),
    );
    const out = join(work, 'generated.adcap');
    const built = await buildPackage(src, { out });
    const listed = await expectSameListing(out);

    expect(listed).toHaveLength(built.manifest.files.length + 1);
    expect(listed.map((e) => e.path)).toContain(longPath);
    expect(listed.filter((e) => e.size === 0)).toHaveLength(40);
    expect(listed.filter((e) => e.executable).map((e) => e.path)).toEqual(['bin/nested/tool', 'bin/run.sh']);
    // And every entry is the file the builder was given.
    for (const entry of listed.slice(1)) {
      const expected = files.get(entry.path) ?? (await readFile(join(src, entry.path)));
      expect(entry.sha256, entry.path).toBe(hash(expected));
    }
  }, 120_000);
});

describe('why tar-stream is not our reader (spec §2)', () => {
  it('tar-stream applies a GNU long name silently; our reader refuses the archive with E_ENTRY_TYPE', async () => {
    const longName = `${'d/'.repeat(60)}file.txt`;
    const gz = gzipBytes(
      rawTar([
        { name: 'capability.json', data: '{}' },
        { name: '././@LongLink', typeflag: 'L', magic: 'ustar ', version: ' \0', data: `${longName}\0` },
        { name: longName.slice(0, 100), magic: 'ustar ', version: ' \0', data: 'x' },
      ]),
    );
    const file = join(work, 'gnu-long-name.adcap');
    await writeFile(file, gz);
    const seen = (await listTarStream(file, false)).map((e) => [e.path, e.type]);
    // The `L` block never reaches tar-stream's caller: it renames the next entry instead.
    expect(seen).toEqual([
      ['capability.json', 'file'],
      [longName, 'file'],
    ]);
    await expect(listOurs(file)).rejects.toMatchObject({ code: 'E_ENTRY_TYPE', message: expect.stringMatching(/GNU long name/) });
  });
});
