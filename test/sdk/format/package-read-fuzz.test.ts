/**
 * Fuzz: mutated archives fed to readPackage must only ever give a verified package or
 * an AdcapError with a known code: no crash, no hang, no write outside the staging directory.
 * Mutations are applied both to the tar (then gzipped, so the tar parser sees them) and to the
 * compressed bytes (so the gzip framing sees them).
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ERROR_CODES, isAdcapError } from '../../../sdk/src/errors.js';
import { readPackage } from '../../../sdk/src/format/package-read.js';
import { gzipBytes, packageTar } from '../../helpers/tar-writer.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-fuzz-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const baseTar = packageTar({
  files: [
    { path: 'README.md', data: '# fuzz\n' },
    { path: 'skills/a/notes.txt', data: 'n'.repeat(900) },
    { path: 'tools/t.mjs', data: 'console.log(1)\n', executable: true },
  ],
  signature: JSON.stringify({
    payload: { adcap: '1.0', id: 'acme/fixture', version: '1.0.0', manifestSha256: 'a'.repeat(64) },
    signatures: [{ keyId: 'b'.repeat(64), alg: 'ed25519', sig: 'c2ln' }],
  }),
});
const baseGz = gzipBytes(baseTar);

type Mutation =
  | { kind: 'set'; at: number; value: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'insert'; at: number; bytes: Uint8Array }
  | { kind: 'copy'; from: number; to: number; length: number }
  | { kind: 'path'; at: number; text: string };

const position = fc.double({ min: 0, max: 1, noNaN: true });
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), at: position, value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: position }),
  fc.record({ kind: fc.constant('insert' as const), at: position, bytes: fc.uint8Array({ minLength: 1, maxLength: 600 }) }),
  fc.record({ kind: fc.constant('copy' as const), from: position, to: position, length: fc.integer({ min: 1, max: 1536 }) }),
  // Overwrite the start of a header's name field with a hostile path.
  fc.record({
    kind: fc.constant('path' as const),
    at: fc.integer({ min: 0, max: 12 }),
    text: fc.constantFrom('../escape', '/abs', 'a\\b', 'capability.json', 'SIGNATURE.json', 'x/../../y', 'README.md\0'),
  }),
);

function apply(input: Buffer, mutations: Mutation[]): Buffer {
  let bytes = Buffer.from(input);
  const index = (p: number): number => Math.min(bytes.length, Math.floor(p * bytes.length));
  for (const m of mutations) {
    if (m.kind === 'set' && bytes.length > 0) bytes[Math.min(bytes.length - 1, index(m.at))] = m.value;
    if (m.kind === 'truncate') bytes = bytes.subarray(0, index(m.at));
    if (m.kind === 'insert') bytes = Buffer.concat([bytes.subarray(0, index(m.at)), m.bytes, bytes.subarray(index(m.at))]);
    if (m.kind === 'copy') {
      const from = index(m.from);
      bytes = Buffer.concat([bytes.subarray(0, index(m.to)), bytes.subarray(from, from + m.length), bytes.subarray(index(m.to))]);
    }
    if (m.kind === 'path' && bytes.length >= (m.at + 1) * 512) bytes.write(m.text, m.at * 512, 'latin1');
  }
  return bytes;
}

async function outcome(bytes: Buffer): Promise<void> {
  const parent = await mkdtemp(join(work, 'run-'));
  const target = join(parent, 'out');
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('readPackage did not settle within 10 s')), 10_000);
  });
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 4096) chunks.push(bytes.subarray(i, i + 4096));
  try {
    const result = await Promise.race([readPackage(Readable.from(chunks), { extractTo: target }), hang]);
    expect(result.dir).toBe(target);
    expect(await readdir(parent)).toEqual(['out']);
  } catch (error) {
    if (!isAdcapError(error)) throw error;
    expect(ERROR_CODES).toContain(error.code);
    expect(error.message.length).toBeGreaterThan(10);
    expect(await readdir(parent), 'a failed read leaves nothing behind').toEqual([]);
  } finally {
    clearTimeout(timer);
    await rm(parent, { recursive: true, force: true });
  }
}

it('the fixture itself is a valid package', async () => {
  const result = await readPackage(Readable.from([baseGz]));
  expect(result.entries).toHaveLength(5);
});

it('mutated tar streams give a verified package or a coded error, never a crash, hang or stray write', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 4 }), async (mutations) => {
      await outcome(gzipBytes(apply(baseTar, mutations), 1));
    }),
    { numRuns: 150 },
  );
});

it('mutated gzip bytes give a verified package or a coded error, never a crash, hang or stray write', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (mutations) => {
      await outcome(apply(baseGz, mutations));
    }),
    { numRuns: 150 },
  );
});
