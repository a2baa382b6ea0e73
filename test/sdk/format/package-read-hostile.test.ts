/**
 * The hostile-archive suite: one test per rule of spec §2-§5 that a reader MUST enforce,
 * each named after the rule and built from test/helpers/tar-writer.ts so the fixture shows what it
 * breaks. Every case also extracts into a temp folder and checks that nothing was written.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../../sdk/src/errors.js';
import { readPackage } from '../../../sdk/src/format/package-read.js';
import {
  END_OF_ARCHIVE,
  gzipBytes,
  manifestFor,
  packageBytes,
  packageTar,
  rawEntry,
  rawTar,
  sha256,
  type RawEntry,
} from '../../helpers/tar-writer.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-hostile-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** Feeds the bytes in small chunks (headers straddle chunks) and expects `code`, with nothing extracted. */
async function expectRejected(bytes: Buffer, code: ErrorCode, message?: RegExp): Promise<void> {
  const parent = await mkdtemp(join(work, 'case-'));
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 333) chunks.push(bytes.subarray(i, i + 333));
  const error = await readPackage(Readable.from(chunks), { extractTo: join(parent, 'out') }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the reader accepted a hostile archive').toBeDefined();
  expect(error).toMatchObject({ code });
  if (message) expect((error as Error).message).toMatch(message);
  expect(await readdir(parent), 'nothing may be written when verification fails').toEqual([]);
}

const readme = { path: 'README.md', data: '# hi\n' };
/** A package whose only file is `entry`, listed in the manifest exactly as given. */
function withListedEntry(entry: RawEntry, path: string, data = 'x'): Buffer {
  const manifest = manifestFor([{ path, data }]);
  return gzipBytes(rawTar([{ name: 'capability.json', data: JSON.stringify(manifest) }, entry]));
}
/** A package with one extra raw entry after a valid file. */
function withExtra(entry: RawEntry): Buffer {
  return packageBytes({ files: [readme], extra: [entry] });
}
const envelope = (manifestSha256 = 'a'.repeat(64)): string =>
  JSON.stringify({
    payload: { adcap: '1.0', id: 'acme/fixture', version: '1.0.0', manifestSha256 },
    signatures: [{ keyId: 'b'.repeat(64), alg: 'ed25519', sig: 'c2lnbmF0dXJl' }],
  });

describe('a valid fixture is accepted (so each rejection below is caused by its one change)', () => {
  it('reads the baseline package', async () => {
    const result = await readPackage(Readable.from([packageBytes({ files: [readme], signature: envelope() })]));
    expect(result.entries).toEqual(['capability.json', 'README.md', 'SIGNATURE.json']);
    // The reader hands SIGNATURE.json over as bytes; the trust layer parses it (trust/package-signature.ts).
    expect(JSON.parse(String(result.signatureBytes)).payload.id).toBe('acme/fixture');
  });
});

describe('spec §2: entries MUST be regular files (E_ENTRY_TYPE)', () => {
  it('rejects a symbolic link', () =>
    expectRejected(withExtra({ name: 'link', typeflag: '2', linkname: '/etc/passwd' }), 'E_ENTRY_TYPE', /symbolic link/));
  it('rejects a hard link', () =>
    expectRejected(withExtra({ name: 'hard', typeflag: '1', linkname: 'README.md' }), 'E_ENTRY_TYPE', /hard link/));
  it('rejects a character device', () =>
    expectRejected(withExtra({ name: 'null', typeflag: '3', devmajor: 1, devminor: 3 }), 'E_ENTRY_TYPE', /character device/));
  it('rejects a block device', () =>
    expectRejected(withExtra({ name: 'sda', typeflag: '4', devmajor: 8 }), 'E_ENTRY_TYPE', /block device/));
  it('rejects a FIFO', () => expectRejected(withExtra({ name: 'pipe', typeflag: '6' }), 'E_ENTRY_TYPE', /FIFO/));
  it('rejects a directory entry', () =>
    expectRejected(withExtra({ name: 'dir/', typeflag: '5', mode: 0o755 }), 'E_ENTRY_TYPE', /directory/));
  it('rejects a GNU sparse file', () => expectRejected(withExtra({ name: 'sparse', typeflag: 'S' }), 'E_ENTRY_TYPE', /sparse/));
  it('rejects a contiguous file', () => expectRejected(withExtra({ name: 'contig', typeflag: '7', data: 'x' }), 'E_ENTRY_TYPE'));
});

describe('spec §2: PAX and GNU extension headers MUST be rejected (E_ENTRY_TYPE)', () => {
  it('rejects a PAX extended header even when it only renames a listed file', () => {
    const pax = '30 path=README.md\n';
    const manifest = manifestFor([readme]);
    const tar = rawTar([
      { name: 'capability.json', data: JSON.stringify(manifest) },
      { name: 'PaxHeaders/x', typeflag: 'x', data: pax },
      { name: 'ignored-name', data: readme.data },
    ]);
    return expectRejected(gzipBytes(tar), 'E_ENTRY_TYPE', /PAX extended header/);
  });
  it('rejects a PAX global header', () =>
    expectRejected(withExtra({ name: 'pax_global_header', typeflag: 'g', data: '20 comment=hello\n' }), 'E_ENTRY_TYPE', /PAX global/));
  it('rejects a GNU long name header', () => {
    const longName = `${'d/'.repeat(60)}file.txt`;
    const manifest = manifestFor([{ path: longName, data: 'x' }]);
    const tar = rawTar([
      { name: 'capability.json', data: JSON.stringify(manifest) },
      { name: '././@LongLink', typeflag: 'L', magic: 'ustar ', version: ' \0', data: `${longName}\0` },
      { name: longName.slice(0, 100), magic: 'ustar ', version: ' \0', data: 'x' },
    ]);
    return expectRejected(gzipBytes(tar), 'E_ENTRY_TYPE', /GNU long name/);
  });
  it('rejects a GNU long link header', () =>
    expectRejected(withExtra({ name: '././@LongLink', typeflag: 'K', data: 'target\0' }), 'E_ENTRY_TYPE', /GNU long link/));
});

describe('spec §2: paths MUST be relative printable ASCII without \\ and bad segments (E_PATH)', () => {
  const rejectsPath = (name: string | Buffer, prefix?: string): Promise<void> =>
    expectRejected(withListedEntry({ name, ...(prefix === undefined ? {} : { prefix }), data: 'x' }, 'listed.txt'), 'E_PATH');
  it('rejects a ".." segment', () => rejectsPath('a/../../etc/passwd'));
  it('rejects a lone ".."', () => rejectsPath('..'));
  it('rejects an absolute path', () => rejectsPath('/etc/passwd'));
  it('rejects a backslash', () => rejectsPath('a\\b.txt'));
  it('rejects a Windows-style traversal with backslashes', () => rejectsPath('..\\..\\evil'));
  it('rejects an empty segment', () => rejectsPath('a//b.txt'));
  it('rejects a trailing slash (empty last segment)', () => rejectsPath('a/b/'));
  it('rejects a "." segment', () => rejectsPath('./a.txt'));
  it('rejects a "." segment in the middle', () => rejectsPath('a/./b.txt'));
  it('rejects non-ASCII bytes (UTF-8 é)', () => rejectsPath(Buffer.from('caf\u00e9.txt', 'utf8')));
  it('rejects a control character', () => rejectsPath('a\u0001b.txt'));
  it('rejects DEL (0x7f)', () => rejectsPath('a\u007fb.txt'));
  it('rejects a newline', () => rejectsPath('a\nb.txt'));
  it('rejects an empty path', () => rejectsPath(''));
  it('rejects a ".." hidden in the ustar prefix field', () => rejectsPath('passwd', '../etc'));
  it('rejects a 241-byte path (prefix 155 + "/" + name 85)', () => {
    const prefix = 'p'.repeat(155);
    const name = 'n'.repeat(85);
    expect(`${prefix}/${name}`.length).toBe(241);
    return expectRejected(withListedEntry({ name, prefix, data: 'x' }, 'listed.txt'), 'E_PATH', /241 bytes/);
  });
  it('accepts a 240-byte path stored with the ustar prefix field', async () => {
    const prefix = `${'p'.repeat(100)}/${'q'.repeat(54)}`;
    const name = 'n'.repeat(84);
    const path = `${prefix}/${name}`;
    expect(path.length).toBe(240);
    const bytes = withListedEntry({ name, prefix, data: 'long' }, path, 'long');
    const parent = await mkdtemp(join(work, 'long-'));
    const result = await readPackage(Readable.from([bytes]), { extractTo: join(parent, 'out') });
    expect(result.entries).toEqual(['capability.json', path]);
    expect(await readdir(join(parent, 'out', 'p'.repeat(100), 'q'.repeat(54)))).toEqual([name]);
  });
});

describe('spec §2: duplicate paths MUST be rejected (E_DUPLICATE)', () => {
  it('rejects the same path twice', () =>
    expectRejected(packageBytes({ files: [readme], extra: [{ name: 'README.md', data: readme.data }] }), 'E_DUPLICATE'));
  it('rejects a second capability.json', () => expectRejected(withExtra({ name: 'capability.json', data: '{}' }), 'E_DUPLICATE'));
  it('rejects a path that is both a file and a directory', () => {
    const files = [
      { path: 'a', data: 'file' },
      { path: 'a/b', data: 'nested' },
    ];
    return expectRejected(packageBytes({ files }), 'E_DUPLICATE');
  });
});

describe('spec §2: capability.json first, SIGNATURE.json last (E_ORDER)', () => {
  it('rejects a package whose first entry is not capability.json', () => {
    const manifest = manifestFor([readme]);
    const tar = rawTar([
      { name: 'README.md', data: readme.data },
      { name: 'capability.json', data: JSON.stringify(manifest) },
    ]);
    return expectRejected(gzipBytes(tar), 'E_ORDER', /first/);
  });
  it('rejects SIGNATURE.json as the first entry', () =>
    expectRejected(gzipBytes(rawTar([{ name: 'SIGNATURE.json', data: envelope() }])), 'E_ORDER'));
  it('rejects an entry after SIGNATURE.json', () => {
    const manifest = manifestFor([readme, { path: 'z.txt', data: 'z' }]);
    const tar = rawTar([
      { name: 'capability.json', data: JSON.stringify(manifest) },
      { name: 'README.md', data: readme.data },
      { name: 'SIGNATURE.json', data: envelope() },
      { name: 'z.txt', data: 'z' },
    ]);
    return expectRejected(gzipBytes(tar), 'E_ORDER', /last/);
  });
  it('rejects an empty archive (no capability.json at all)', () => expectRejected(gzipBytes(END_OF_ARCHIVE), 'E_ORDER'));
});

describe('spec §4: each entry is checked against files (E_HASH, E_UNLISTED, E_MISSING)', () => {
  it('rejects an entry whose SHA-256 differs from files', () => {
    const manifest = manifestFor([readme]);
    return expectRejected(packageBytes({ manifest, files: [{ path: 'README.md', data: '# hI\n' }] }), 'E_HASH', /SHA-256/);
  });
  it('rejects an entry whose size differs from files', () => {
    const manifest = manifestFor([readme]);
    return expectRejected(packageBytes({ manifest, files: [{ path: 'README.md', data: '# hi!\n' }] }), 'E_HASH', /bytes/);
  });
  it('rejects an unlisted file', () => expectRejected(withExtra({ name: 'payload.sh', data: 'rm -rf /' }), 'E_UNLISTED'));
  it('rejects a missing file', () => {
    const manifest = manifestFor([readme, { path: 'tools/run.mjs', data: 'x' }]);
    return expectRejected(packageBytes({ manifest, files: [readme] }), 'E_MISSING', /tools\/run\.mjs/);
  });
});

describe('spec §3, §14: the manifest is parsed strictly and validated', () => {
  const withManifestText = (text: string): Buffer => packageBytes({ manifest: text, files: [readme] });
  const base = (): Record<string, unknown> => manifestFor([readme]);
  it('rejects a newer major format version (E_VERSION_MAJOR)', () =>
    expectRejected(withManifestText(JSON.stringify({ ...base(), adcap: '2.0' })), 'E_VERSION_MAJOR'));
  it('rejects an unknown top-level field (E_SCHEMA)', () =>
    expectRejected(withManifestText(JSON.stringify({ ...base(), installScript: 'curl | sh' })), 'E_SCHEMA'));
  it('rejects a float (E_JSON)', () => {
    const text = JSON.stringify(base()).replace('"files":', '"x":{"acme":{"ratio":1.5}},"files":');
    return expectRejected(withManifestText(text), 'E_JSON', /integer/);
  });
  it('rejects a duplicate key (E_JSON)', () => {
    const text = JSON.stringify(base()).replace('"version":"1.0.0"', '"version":"1.0.0","version":"9.9.9"');
    return expectRejected(withManifestText(text), 'E_JSON', /twice/);
  });
  it('rejects invalid JSON (E_JSON)', () => expectRejected(withManifestText('{"adcap": "1.0",'), 'E_JSON'));
  it('rejects a semantic rule violation (E_SEMANTIC): a tool permission the capability does not declare', () => {
    const files = [readme, { path: 'tools/t.mjs', data: 'x' }];
    const manifest = manifestFor(files, {
      tools: [
        {
          name: 't',
          description: 'd',
          runtime: { type: 'node', entry: 'tools/t.mjs' },
          inputSchema: { type: 'object' },
          permissions: ['net:connect'],
        },
      ],
    });
    return expectRejected(packageBytes({ manifest, files }), 'E_SEMANTIC', /tool-permission-declared/);
  });
  it('rejects a capability.json over maxManifestBytes (E_LIMIT)', async () => {
    const parent = await mkdtemp(join(work, 'cap-'));
    const error = await readPackage(Readable.from([packageBytes({ files: [readme] })]), {
      extractTo: join(parent, 'o'),
      limits: { maxManifestBytes: 100 },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_LIMIT' });
    expect(await readdir(parent)).toEqual([]);
  });
});

describe('DESIGN §9 E_GZIP: not gzip, corrupt, truncated, trailing data', () => {
  const good = (): Buffer => packageBytes({ files: [readme] });
  it('rejects a truncated gzip stream', () => {
    const bytes = good();
    return expectRejected(bytes.subarray(0, bytes.length - 20), 'E_GZIP', /truncated/);
  });
  it('rejects a gzip stream missing only its trailer', () => {
    const bytes = good();
    return expectRejected(bytes.subarray(0, bytes.length - 4), 'E_GZIP');
  });
  it('rejects trailing garbage after the gzip stream', () =>
    expectRejected(Buffer.concat([good(), Buffer.from('garbage')]), 'E_GZIP', /after the end/));
  it('rejects trailing zeros after the gzip stream', () => expectRejected(Buffer.concat([good(), Buffer.alloc(16)]), 'E_GZIP'));
  it('rejects a second gzip member', () => expectRejected(Buffer.concat([good(), zlib.gzipSync(Buffer.alloc(1024))]), 'E_GZIP'));
  it('rejects a bad CRC-32', () => {
    const bytes = Buffer.from(good());
    bytes[bytes.length - 8] = bytes[bytes.length - 8]! ^ 0xff;
    return expectRejected(bytes, 'E_GZIP', /CRC/);
  });
  it('rejects data that is not gzip', () => expectRejected(packageTar({ files: [readme] }), 'E_GZIP'));
  it('rejects an empty file', () => expectRejected(Buffer.alloc(0), 'E_GZIP'));
  it('rejects a corrupt deflate body', () => {
    const bytes = Buffer.from(good());
    bytes.fill(0xff, 12, 40);
    return expectRejected(bytes, 'E_GZIP');
  });
});

describe('DESIGN §9 E_TAR: malformed headers, bad checksums, truncated archives', () => {
  it('rejects a bad header checksum', () => expectRejected(withExtra({ name: 'x.txt', data: 'x', checksumDelta: 1 }), 'E_TAR', /checksum/));
  it('rejects a header that is not POSIX ustar (GNU magic)', () =>
    expectRejected(withExtra({ name: 'x.txt', data: 'x', magic: 'ustar ', version: ' \0' }), 'E_TAR', /ustar/));
  it('rejects a tar stream without the end-of-archive marker', () => {
    const tar = packageTar({ files: [readme] });
    return expectRejected(gzipBytes(tar.subarray(0, tar.length - 1024)), 'E_TAR', /end-of-archive/);
  });
  it('rejects a tar stream cut inside an entry', () => {
    const manifest = manifestFor([{ path: 'big.txt', data: 'y'.repeat(2000) }]);
    const full = rawTar(
      [
        { name: 'capability.json', data: JSON.stringify(manifest) },
        { name: 'big.txt', data: 'y'.repeat(2000) },
      ],
      { end: false },
    );
    return expectRejected(gzipBytes(full.subarray(0, full.length - 1024)), 'E_TAR', /middle of an entry/);
  });
  it('rejects data hidden after the end-of-archive marker', () =>
    expectRejected(
      gzipBytes(Buffer.concat([packageTar({ files: [readme] }), rawEntry({ name: 'hidden', data: 'x' })])),
      'E_TAR',
      /after the tar end-of-archive/,
    ));
  it('rejects a size field in base-256', () => {
    const header = rawEntry({ name: 'x.txt', data: 'x' });
    header[124] = 0x80;
    return expectRejected(
      gzipBytes(Buffer.concat([packageTar({ files: [readme] }).subarray(0, -1024), fixChecksum(header), END_OF_ARCHIVE])),
      'E_TAR',
      /size or mode/,
    );
  });
});

/** Recomputes a header checksum after a test edited a field. */
function fixChecksum(entry: Buffer): Buffer {
  const block = Buffer.from(entry);
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += block[i]!;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return block;
}

it('has a helper that writes the same hashes as the reader computes (sanity of the fixtures)', () => {
  expect(sha256('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
});
