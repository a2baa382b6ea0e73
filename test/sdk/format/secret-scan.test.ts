// `adcap build` refuses to package a file that holds a secret key.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPackage } from '../../../sdk/src/format/package-build.js';
import { SCAN_BYTES, secretKeyKind } from '../../../sdk/src/format/secret-scan.js';
import { generateKey, publicKeyOf, writeKeyFile } from '../../../sdk/src/trust/keys.js';
import { rejection } from '../../helpers/errors.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-secret-scan-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const manifest = { adcap: '1.0', id: 'acme/keys', version: '1.0.0', name: 'Keys', summary: 'A capability that must not ship keys.' };

async function capability(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(work, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'capability.json'), JSON.stringify(manifest));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

describe('secretKeyKind', () => {
  it('recognises a key file written by adcap keygen (sdk/src/trust/keys.ts), but not its public half', async () => {
    const key = generateKey();
    await writeKeyFile(join(work, 'real.key.json'), key);
    expect(secretKeyKind(await readFile(join(work, 'real.key.json'), 'utf8'))).toBe('an Arcotheon signing key file (it has a "secretKey")');
    expect(secretKeyKind(JSON.stringify(publicKeyOf(key)))).toBeNull();
    // Prose that mentions the field is not a key file.
    expect(secretKeyKind('The "secretKey" field of a key file is the base64 seed.')).toBeNull();
    expect(secretKeyKind(JSON.stringify({ docs: 'a key file has "secretKey"' }))).toBeNull();
  });

  it('recognises PEM private keys of every common kind, made by real tools', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pems = {
      pkcs8: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      pkcs1: rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string,
      sec1: ec.privateKey.export({ type: 'sec1', format: 'pem' }) as string,
      encrypted: ec.privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'x' }) as string,
      openssl: execFileSync('openssl', ['genpkey', '-algorithm', 'ed25519'], { encoding: 'utf8' }),
    };
    expect(secretKeyKind(pems.pkcs8)).toBe('a private key ("-----BEGIN PRIVATE KEY-----")');
    expect(secretKeyKind(pems.pkcs1)).toBe('a private key ("-----BEGIN RSA PRIVATE KEY-----")');
    expect(secretKeyKind(pems.sec1)).toBe('a private key ("-----BEGIN EC PRIVATE KEY-----")');
    expect(secretKeyKind(pems.encrypted)).toBe('a private key ("-----BEGIN ENCRYPTED PRIVATE KEY-----")');
    expect(secretKeyKind(`# config\n${pems.openssl}`)).toBe('a private key ("-----BEGIN PRIVATE KEY-----")');
    expect(secretKeyKind('-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn...\n')).toBe('a private key ("-----BEGIN OPENSSH PRIVATE KEY-----")');
    expect(secretKeyKind('-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQ...\n')).toBe(
      'a private key ("-----BEGIN PGP PRIVATE KEY BLOCK-----")',
    );
    // Public material is fine to ship.
    expect(secretKeyKind(rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string)).toBeNull();
    expect(secretKeyKind('-----BEGIN CERTIFICATE-----\nMIIB...\n-----END CERTIFICATE-----\n')).toBeNull();
  });
});

describe('buildPackage refuses a secret key', () => {
  it('E_SEMANTIC naming the package path of a key file, whatever its name; nothing is written', async () => {
    const dir = await capability('with-key', { 'README.md': '# Keys\n' });
    await writeKeyFile(join(dir, 'config', 'settings.json'), generateKey());
    const out = join(work, 'with-key.adcap');
    const error = await rejection(buildPackage(dir, { out }));
    expect(error.code).toBe('E_SEMANTIC');
    expect(error.message).toBe(
      'config/settings.json holds an Arcotheon signing key file (it has a "secretKey") ' +
        'and would be published inside the package; move it out of the capability ' +
        'folder (keep keys under your user config directory) or list it in .adcapignore.',
    );
    expect(error.details).toEqual({ path: 'config/settings.json' });
    await expect(readFile(out)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it(
    'finds a PEM private key at the top of a file larger than the builder ' +
      'reads whole (320 KiB), and builds once .adcapignore leaves it out',
    async () => {
      const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
      const dir = await capability('with-pem', { 'data/bundle.txt': `${pem}${'x'.repeat(5 * SCAN_BYTES)}` });
      const error = await rejection(buildPackage(dir, { out: join(work, 'with-pem.adcap') }));
      expect([error.code, error.details]).toEqual(['E_SEMANTIC', { path: 'data/bundle.txt' }]);
      await writeFile(join(dir, '.adcapignore'), 'data/bundle.txt\n');
      const built = await buildPackage(dir, { out: join(work, 'with-pem.adcap') });
      expect(built.manifest.files.map((f) => f.path)).toEqual([]);
    },
  );
});
