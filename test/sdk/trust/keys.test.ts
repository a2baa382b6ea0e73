import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAdcapError } from '../../../sdk/src/errors.js';
import { signBytes, verifyBytes } from '../../../sdk/src/trust/ed25519.js';
import {
  generateKey,
  keyFromSeed,
  keyIdOf,
  parseKeyFile,
  readKeyFile,
  trustedKeyFromPublicKey,
  writeKeyFile,
} from '../../../sdk/src/trust/keys.js';

// RFC 8032 §7.1, test 1 and test 2. keyIds and base64 forms computed independently with
// `xxd -r -p | sha256sum` and `| base64`.
const RFC_TEST_1 = {
  seedHex: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
  secretKey: 'nWGxne/9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A=',
  publicKey: '11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=',
  keyId: '21fe31dfa154a261626bf854046fd2271b7bed4b6abe45aa58877ef47f9721b9',
  emptyMessageSig:
    'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
};
const RFC_TEST_2 = {
  seedHex: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
  publicKey: 'PUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw=',
  keyId: '39f713d0a644253f04529421b9f51b9b08979d08295959c4f3990ee617f5139f',
};

describe('keys (spec §5: keyId = SHA-256 of the raw public key, base64 public keys)', () => {
  it('derives the RFC 8032 public keys and the keyId vectors', () => {
    const key1 = keyFromSeed(Buffer.from(RFC_TEST_1.seedHex, 'hex'));
    expect(key1).toEqual({ alg: 'ed25519', keyId: RFC_TEST_1.keyId, publicKey: RFC_TEST_1.publicKey, secretKey: RFC_TEST_1.secretKey });
    const key2 = keyFromSeed(Buffer.from(RFC_TEST_2.seedHex, 'hex'));
    expect(key2.publicKey).toBe(RFC_TEST_2.publicKey);
    expect(keyIdOf(RFC_TEST_2.publicKey)).toBe(RFC_TEST_2.keyId);
  });

  it('signs with the RFC 8032 test vector (ed25519 configured with node:crypto sha512)', () => {
    const sig = signBytes(new Uint8Array(0), Buffer.from(RFC_TEST_1.seedHex, 'hex'));
    expect(Buffer.from(sig).toString('hex')).toBe(RFC_TEST_1.emptyMessageSig);
    expect(verifyBytes(sig, new Uint8Array(0), Buffer.from(RFC_TEST_1.publicKey, 'base64'))).toBe(true);
    expect(verifyBytes(sig, new Uint8Array([0]), Buffer.from(RFC_TEST_1.publicKey, 'base64'))).toBe(false);
  });

  it('generates distinct, self-consistent keys', () => {
    const a = generateKey();
    const b = generateKey();
    expect(a.keyId).not.toBe(b.keyId);
    expect(parseKeyFile(a, 'a')).toEqual(a);
    expect(keyIdOf(a.publicKey)).toBe(a.keyId);
  });

  it('refuses public keys that are not canonical base64 of 32 bytes', () => {
    for (const bad of [
      '',
      'abc',
      RFC_TEST_1.publicKey.slice(0, -1),
      `${RFC_TEST_1.publicKey}AAAA`,
      RFC_TEST_1.publicKey.replace('/', '_'),
      ` ${RFC_TEST_1.publicKey}`,
    ]) {
      expect(() => keyIdOf(bad), bad).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    }
    expect(trustedKeyFromPublicKey(RFC_TEST_1.publicKey)).toEqual({ keyId: RFC_TEST_1.keyId, publicKey: RFC_TEST_1.publicKey });
  });

  it('parseKeyFile refuses inconsistent or malformed key files', () => {
    const good = keyFromSeed(Buffer.alloc(32, 7));
    const other = keyFromSeed(Buffer.alloc(32, 8));
    const cases: Record<string, unknown> = {
      'not an object': [good],
      'wrong alg': { ...good, alg: 'rsa' },
      'missing secretKey': { alg: good.alg, keyId: good.keyId, publicKey: good.publicKey },
      'extra field': { ...good, comment: 'x' },
      'short seed': { ...good, secretKey: Buffer.alloc(31).toString('base64') },
      'public key of another seed': { ...good, publicKey: other.publicKey, keyId: other.keyId },
      'keyId of another key': { ...good, keyId: other.keyId },
      'uppercase keyId': { ...good, keyId: good.keyId.toUpperCase() },
    };
    for (const [name, value] of Object.entries(cases)) {
      expect(() => parseKeyFile(value, 'key.json'), name).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    }
  });
});

describe('key files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'adcap-keys-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes mode 0600 and reads back the same key', async () => {
    const key = generateKey();
    const file = join(dir, 'nested', 'key.json');
    await writeKeyFile(file, key);
    if (process.platform !== 'win32') expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readKeyFile(file)).toEqual(key);
  });

  it('refuses to overwrite an existing key file unless forced', async () => {
    const file = join(dir, 'key.json');
    const first = generateKey();
    const second = generateKey();
    await writeKeyFile(file, first);
    const error = await writeKeyFile(file, second).catch((e: unknown) => e);
    expect(isAdcapError(error, 'E_USAGE')).toBe(true);
    expect((error as Error).message).toMatch(/already exists.*--force/);
    expect(await readKeyFile(file)).toEqual(first);
    await writeKeyFile(file, second, { force: true });
    expect(await readKeyFile(file)).toEqual(second);
    if (process.platform !== 'win32') expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('readKeyFile names the problem: missing file, bad JSON, tampered keyId', async () => {
    await expect(readKeyFile(join(dir, 'absent.json'))).rejects.toMatchObject({ code: 'E_IO' });
    await writeFile(join(dir, 'bad.json'), '{"alg": "ed25519",');
    await expect(readKeyFile(join(dir, 'bad.json'))).rejects.toMatchObject({ code: 'E_JSON' });
    const key = generateKey();
    await writeFile(join(dir, 'tampered.json'), JSON.stringify({ ...key, keyId: '0'.repeat(64) }));
    await expect(readKeyFile(join(dir, 'tampered.json'))).rejects.toMatchObject({
      code: 'E_USAGE',
      message: expect.stringMatching(/keyId/),
    });
    const written = join(dir, 'ok.json');
    await writeKeyFile(written, key);
    expect(JSON.parse(await readFile(written, 'utf8'))).toEqual(key);
  });
});
