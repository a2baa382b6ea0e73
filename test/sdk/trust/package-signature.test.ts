import { access, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildPackage } from '../../../sdk/src/format/package-build.js';
import type { Envelope, PackagePayload } from '../../../sdk/src/format/manifest-types.js';
import { readPackage } from '../../../sdk/src/format/package-read.js';
import { CATALOG_CONTEXT, PACKAGE_CONTEXT, signEnvelope } from '../../../sdk/src/trust/envelope.js';
import { keyFromSeed, publicKeyOf } from '../../../sdk/src/trust/keys.js';
import { buildSignedPackage, signPackage, verifyPackage } from '../../../sdk/src/trust/package-signature.js';
import { capabilitySource } from './package-fixture.js';

const alice = keyFromSeed(Buffer.alloc(32, 11));
const bob = keyFromSeed(Buffer.alloc(32, 12));

let fixture: Awaited<ReturnType<typeof capabilitySource>>;
beforeEach(async () => {
  fixture = await capabilitySource();
});
afterEach(async () => {
  await fixture.cleanup();
});

/** Builds the fixture with SIGNATURE.json produced by `envelopeFor` (which may forge or misuse it). */
async function buildWith(envelopeFor: (payload: PackagePayload) => Envelope<PackagePayload>, name = 'pkg.adcap'): Promise<string> {
  const out = join(fixture.root, name);
  await buildPackage(fixture.src, { out, envelopeFor });
  return out;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe('verifyPackage (spec §5 verifier rules)', () => {
  it('accepts a package signed by a trusted key and reports the signer', async () => {
    const out = join(fixture.root, 'pkg.adcap');
    const built = await buildSignedPackage(fixture.src, { out, keys: [alice] });
    expect(built.signedBy).toEqual([alice.keyId]);
    const pkg = await verifyPackage(out, { trusted: [publicKeyOf(alice)], requireSignature: true });
    expect(pkg).toMatchObject({ signed: true, signedBy: [alice.keyId], manifestSha256: built.manifestSha256 });
    expect(pkg.entries.at(-1)).toBe('SIGNATURE.json');
  });

  it('signature payload mismatch: a valid signature over another manifest digest is E_SIGNATURE', async () => {
    const out = await buildWith((payload) => signEnvelope({ ...payload, manifestSha256: 'b'.repeat(64) }, PACKAGE_CONTEXT, [alice]));
    await expect(verifyPackage(out, { trusted: [publicKeyOf(alice)] })).rejects.toMatchObject({
      code: 'E_SIGNATURE',
      message: expect.stringMatching(/covers/),
    });
    // Even without trusted keys the payload must match the manifest.
    await expect(verifyPackage(out)).rejects.toMatchObject({ code: 'E_SIGNATURE' });
  });

  it('signature payload mismatch: a signature for another id or version is E_SIGNATURE', async () => {
    const otherId = await buildWith((payload) => signEnvelope({ ...payload, id: 'acme/other' }, PACKAGE_CONTEXT, [alice]), 'a.adcap');
    await expect(verifyPackage(otherId, { trusted: [publicKeyOf(alice)] })).rejects.toMatchObject({ code: 'E_SIGNATURE' });
    const otherVersion = await buildWith((payload) => signEnvelope({ ...payload, version: '9.9.9' }, PACKAGE_CONTEXT, [alice]), 'b.adcap');
    await expect(verifyPackage(otherVersion, { trusted: [publicKeyOf(alice)] })).rejects.toMatchObject({ code: 'E_SIGNATURE' });
  });

  it('untrusted key: a package signed only by an unknown key is E_UNTRUSTED', async () => {
    const out = join(fixture.root, 'pkg.adcap');
    await buildSignedPackage(fixture.src, { out, keys: [bob] });
    await expect(verifyPackage(out, { trusted: [publicKeyOf(alice)] })).rejects.toMatchObject({ code: 'E_UNTRUSTED' });
  });

  it('revoked key: the only valid signature by a revoked key is E_REVOKED', async () => {
    const out = join(fixture.root, 'pkg.adcap');
    await buildSignedPackage(fixture.src, { out, keys: [alice] });
    await expect(verifyPackage(out, { trusted: [{ ...publicKeyOf(alice), status: 'revoked' }] })).rejects.toMatchObject({
      code: 'E_REVOKED',
    });
  });

  it('context replay: a catalogue-context signature in SIGNATURE.json is refused', async () => {
    const out = await buildWith((payload) => signEnvelope(payload, CATALOG_CONTEXT, [alice]));
    await expect(verifyPackage(out, { trusted: [publicKeyOf(alice)] })).rejects.toMatchObject({ code: 'E_SIGNATURE' });
  });

  it('a corrupted signature by a trusted key is E_SIGNATURE', async () => {
    const out = await buildWith((payload) => {
      const env = signEnvelope(payload, PACKAGE_CONTEXT, [alice]);
      const sig = Buffer.from(env.signatures[0]!.sig, 'base64');
      sig[10] = (sig[10] ?? 0) ^ 1;
      return { payload, signatures: [{ ...env.signatures[0]!, sig: sig.toString('base64') }] };
    });
    await expect(verifyPackage(out, { trusted: [publicKeyOf(alice)] })).rejects.toMatchObject({ code: 'E_SIGNATURE' });
  });

  it('unsigned packages pass only when no signature is required', async () => {
    const out = join(fixture.root, 'pkg.adcap');
    await buildPackage(fixture.src, { out });
    expect(await verifyPackage(out)).toMatchObject({ signed: false, signedBy: [] });
    await expect(verifyPackage(out, { requireSignature: true })).rejects.toMatchObject({ code: 'E_UNTRUSTED' });
    await expect(verifyPackage(out, { trusted: [publicKeyOf(alice)], requireSignature: true })).rejects.toMatchObject({
      code: 'E_UNTRUSTED',
    });
  });

  it('without trusted keys a signed package is integrity-checked but no signer is claimed', async () => {
    const out = join(fixture.root, 'pkg.adcap');
    await buildSignedPackage(fixture.src, { out, keys: [alice] });
    expect(await verifyPackage(out)).toMatchObject({ signed: true, signedBy: [] });
    await expect(verifyPackage(out, { requireSignature: true })).rejects.toMatchObject({ code: 'E_UNTRUSTED' });
  });

  it('extractTo appears only after the signatures are accepted', async () => {
    const out = join(fixture.root, 'pkg.adcap');
    await buildSignedPackage(fixture.src, { out, keys: [bob] });
    const target = join(fixture.root, 'installed');
    await expect(verifyPackage(out, { trusted: [publicKeyOf(alice)], extractTo: target, readOnly: true })).rejects.toMatchObject({
      code: 'E_UNTRUSTED',
    });
    expect(await exists(target)).toBe(false);
    expect((await readdir(fixture.root)).sort()).toEqual(['pkg.adcap', 'src']);

    const pkg = await verifyPackage(out, { trusted: [publicKeyOf(bob)], extractTo: target, readOnly: true });
    expect(pkg.dir).toBe(target);
    expect(await readFile(join(target, 'tools', 'greet.mjs'), 'utf8')).toContain('process.stdout');
    expect((await readdir(fixture.root)).sort()).toEqual(['installed', 'pkg.adcap', 'src']);
  });
});

describe('signPackage', () => {
  it('signs an unsigned package in place; the result verifies and keeps its identity', async () => {
    const out = join(fixture.root, 'pkg.adcap');
    const built = await buildPackage(fixture.src, { out });
    const signed = await signPackage(out, [alice]);
    expect(signed).toMatchObject({ file: out, manifestSha256: built.manifestSha256, previousSigners: [], added: [alice.keyId] });
    const pkg = await verifyPackage(out, { trusted: [publicKeyOf(alice)], requireSignature: true });
    expect(pkg.signedBy).toEqual([alice.keyId]);
    expect(pkg.entries).toEqual(['capability.json', 'skills/hello/SKILL.md', 'tools/greet.mjs', 'SIGNATURE.json']);
    expect(pkg.manifest).toEqual(built.manifest);
    expect(pkg.archiveSha256).toBe(signed.archiveSha256);
  });

  it('signing an existing signed package keeps it verifiable and adds a second signature', async () => {
    const out = join(fixture.root, 'pkg.adcap');
    const first = await buildSignedPackage(fixture.src, { out, keys: [alice] });
    const before = await readPackage(out);
    const signed = await signPackage(out, [bob]);
    expect(signed.previousSigners).toEqual([alice.keyId]);
    expect(signed.added).toEqual([bob.keyId]);
    expect(signed.envelope.signatures[0]).toEqual(first.envelope.signatures[0]);
    const after = await readPackage(out);
    expect(after.manifestSha256).toBe(before.manifestSha256);
    expect(after.entries).toEqual(before.entries);
    expect((await verifyPackage(out, { trusted: [publicKeyOf(alice), publicKeyOf(bob)] })).signedBy).toEqual([alice.keyId, bob.keyId]);
    expect((await verifyPackage(out, { trusted: [publicKeyOf(alice)] })).signedBy).toEqual([alice.keyId]);
    expect((await verifyPackage(out, { trusted: [publicKeyOf(bob)] })).signedBy).toEqual([bob.keyId]);
    // Signing again with a key that already signed changes nothing.
    expect((await signPackage(out, [alice])).added).toEqual([]);
    expect((await verifyPackage(out)).envelope?.signatures).toHaveLength(2);
  });

  it('the result is byte-identical to building with both keys at once', async () => {
    const signedLater = join(fixture.root, 'later.adcap');
    await buildPackage(fixture.src, { out: signedLater });
    await signPackage(signedLater, [alice]);
    await signPackage(signedLater, [bob]);
    const direct = join(fixture.root, 'direct.adcap');
    await buildSignedPackage(fixture.src, { out: direct, keys: [alice, bob] });
    expect(Buffer.compare(await readFile(signedLater), await readFile(direct))).toBe(0);
  });

  it('with out, the input is left untouched', async () => {
    const input = join(fixture.root, 'pkg.adcap');
    await buildPackage(fixture.src, { out: input });
    const original = await readFile(input);
    const out = join(fixture.root, 'signed.adcap');
    await signPackage(input, [alice], { out });
    expect(Buffer.compare(await readFile(input), original)).toBe(0);
    expect((await verifyPackage(out, { trusted: [publicKeyOf(alice)] })).signedBy).toEqual([alice.keyId]);
    expect((await readdir(fixture.root)).sort()).toEqual(['pkg.adcap', 'signed.adcap', 'src']);
  });

  it('refuses to add a signature next to one that covers other content, and leaves the file alone', async () => {
    const out = await buildWith((payload) => signEnvelope({ ...payload, version: '0.0.1' }, PACKAGE_CONTEXT, [alice]));
    const original = await readFile(out);
    await expect(signPackage(out, [bob])).rejects.toMatchObject({ code: 'E_SIGNATURE' });
    expect(Buffer.compare(await readFile(out), original)).toBe(0);
    expect((await readdir(fixture.root)).sort()).toEqual(['pkg.adcap', 'src']);
  });

  it('refuses to sign a package that fails verification (tampered archive)', async () => {
    const out = join(fixture.root, 'pkg.adcap');
    await buildPackage(fixture.src, { out });
    const bytes = await readFile(out);
    await writeFile(out, bytes.subarray(0, bytes.length - 20));
    await expect(signPackage(out, [alice])).rejects.toMatchObject({ code: expect.stringMatching(/^E_(GZIP|TAR)$/) });
  });

  it('refuses to sign with no keys', async () => {
    const out = join(fixture.root, 'pkg.adcap');
    await buildPackage(fixture.src, { out });
    await expect(signPackage(out, [])).rejects.toMatchObject({ code: 'E_USAGE' });
  });
});
