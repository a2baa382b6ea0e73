import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export function createSha256(): Hash {
  return createHash('sha256');
}

/** SHA-256 and size of a file, streamed (memory does not grow with the file). */
export async function hashFile(path: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    const buf = chunk as Buffer;
    size += buf.length;
    hash.update(buf);
  }
  return { sha256: hash.digest('hex'), size };
}

export const SHA256_HEX = /^[0-9a-f]{64}$/;
