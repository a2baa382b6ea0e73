// A low-level zip writer for hostile MCP Bundle fixtures: each entry's name bytes, Unix mode,
// declared size and data are whatever the test says, so a reader of the test sees what each
// archive breaks (zip slip, symbolic links, a size that lies, a bomb).
import { createDeflateRaw, deflateRawSync } from 'node:zlib';
import { crc32 } from 'node:zlib';

export interface ZipEntrySpec {
  name: string | Buffer;
  data?: Buffer | string;
  /** Already deflated bytes (with `size` and `crc`), e.g. a bomb made by `deflatedZeros`. */
  deflated?: { bytes: Buffer; size: number; crc: number };
  /** Unix mode, e.g. 0o100644, 0o120777 for a symbolic link. */
  mode?: number;
  /** The uncompressed size the headers claim (default: the real one). */
  declaredSize?: number;
  store?: boolean;
}

/** Writes a zip archive (no data descriptors, no zip64) holding `entries` in order. */
export function writeZip(entries: ZipEntrySpec[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = typeof e.name === 'string' ? Buffer.from(e.name, 'utf8') : e.name;
    const raw = e.data === undefined ? Buffer.alloc(0) : Buffer.from(e.data);
    const method = e.deflated !== undefined || e.store !== true ? 8 : 0;
    const body = e.deflated?.bytes ?? (method === 8 ? deflateRawSync(raw) : raw);
    const size = e.declaredSize ?? e.deflated?.size ?? raw.length;
    const crc = e.deflated?.crc ?? crc32(raw);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, body);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made on Unix
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((e.mode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** `mib` MiB of zeros, deflated as a stream (never held whole in memory): about 1 KiB per MiB. */
export async function deflatedZeros(mib: number): Promise<{ bytes: Buffer; size: number; crc: number }> {
  const chunk = Buffer.alloc(1024 * 1024);
  let crc = 0;
  for (let i = 0; i < mib; i++) crc = crc32(chunk, crc);
  const deflate = createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (d: Buffer) => out.push(d));
  const done = new Promise<void>((resolve, reject) => {
    deflate.on('end', resolve);
    deflate.on('error', reject);
  });
  for (let i = 0; i < mib; i++) {
    if (!deflate.write(chunk)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await done;
  // The size field is 32 bits: 1 GiB fits; the zip says what the test asks.
  return { bytes: Buffer.concat(out), size: Math.min(mib * 1024 * 1024, 0xffffffff), crc };
}
