/**
 * spec §5: SIGNATURE.json must be a well-formed envelope (E_SIGNATURE). The format reader hands the
 * entry over as bytes (format/package-read.ts); the trust layer is the one parser of it
 * (parsePackageEnvelope). Each case goes through verifyPackage with extraction, so it also checks
 * that nothing was written. (These cases moved here from test/sdk/format/package-read-hostile.test.ts
 * with their assertions when the format reader's own, looser copy of the parser was removed.)
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../../sdk/src/errors.js';
import { readPackage } from '../../../sdk/src/format/package-read.js';
import { parsePackageEnvelope, verifyPackage } from '../../../sdk/src/trust/package-signature.js';
import { packageBytes } from '../../helpers/tar-writer.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-hostile-sig-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function expectRejected(bytes: Buffer, code: ErrorCode, message?: RegExp): Promise<void> {
  const parent = await mkdtemp(join(work, 'case-'));
  const error = await verifyPackage(Readable.from([bytes]), { extractTo: join(parent, 'out') }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the verifier accepted a hostile signature').toBeDefined();
  expect(error).toMatchObject({ code });
  if (message) expect((error as Error).message).toMatch(message);
  expect(await readdir(parent), 'nothing may be written when verification fails').toEqual([]);
}

const readme = { path: 'README.md', data: '# hi\n' };
const sig64 = Buffer.alloc(64, 7).toString('base64');
const envelope = (manifestSha256 = 'a'.repeat(64), sig = sig64): string =>
  JSON.stringify({
    payload: { adcap: '1.0', id: 'acme/fixture', version: '1.0.0', manifestSha256 },
    signatures: [{ keyId: 'b'.repeat(64), alg: 'ed25519', sig }],
  });

describe('spec §5: SIGNATURE.json must be a well-formed envelope (E_SIGNATURE)', () => {
  it('rejects SIGNATURE.json that is not JSON', () =>
    expectRejected(packageBytes({ files: [readme], signature: 'not json' }), 'E_SIGNATURE'));
  it('rejects an envelope without signatures', () =>
    expectRejected(
      packageBytes({ files: [readme], signature: JSON.stringify({ payload: JSON.parse(envelope()).payload, signatures: [] }) }),
      'E_SIGNATURE',
    ));
  it('rejects an envelope with a wrong algorithm', () =>
    expectRejected(packageBytes({ files: [readme], signature: envelope().replace('ed25519', 'rsa') }), 'E_SIGNATURE'));
  it('rejects an envelope with an unknown field', () =>
    expectRejected(packageBytes({ files: [readme], signature: envelope().replace('{"payload"', '{"extra":1,"payload"') }), 'E_SIGNATURE'));
  // What the format reader's copy let through and the trust parser always refused: one parser now.
  it('rejects a signature that is base64 but not 64 bytes', () =>
    expectRejected(packageBytes({ files: [readme], signature: envelope(undefined, 'c2lnbmF0dXJl') }), 'E_SIGNATURE', /64/));
  it('rejects a payload with an unknown field', () =>
    expectRejected(
      packageBytes({ files: [readme], signature: envelope().replace('"adcap"', '"extra":"x","adcap"') }),
      'E_SIGNATURE',
      /unknown field "extra"/,
    ));
  it('rejects a payload whose manifestSha256 is not hex', () =>
    expectRejected(packageBytes({ files: [readme], signature: envelope('z'.repeat(64)) }), 'E_SIGNATURE', /manifestSha256/));
});

describe('the reader hands the bytes over unparsed; parsePackageEnvelope is the one parser', () => {
  it('reads a package with a malformed SIGNATURE.json, whose parse then fails', async () => {
    const read = await readPackage(Readable.from([packageBytes({ files: [readme], signature: 'not json' })]));
    expect(String(read.signatureBytes)).toBe('not json');
    expect(() => parsePackageEnvelope(read.signatureBytes as Buffer)).toThrow(expect.objectContaining({ code: 'E_SIGNATURE' }));
  });
  it('parses a well-formed envelope', () => {
    expect(parsePackageEnvelope(Buffer.from(envelope())).payload).toEqual({
      adcap: '1.0',
      id: 'acme/fixture',
      version: '1.0.0',
      manifestSha256: 'a'.repeat(64),
    });
  });
});
