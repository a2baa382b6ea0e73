// The desktop app's secrets: sealed with safeStorage on disk, asked once in the window,
// handed back to the run that asked. safeStorage itself needs the Electron binary and the OS
// keychain; it is replaced by AES-256-GCM under a random key with the same three methods.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SecretRequest } from '../../../electron/common/desktop.js';
import { SafeSecretStore, SecretBroker, type Encryptor } from '../../../electron/main/secrets.js';

function keychain(available = true, key = randomBytes(32)): Encryptor {
  return {
    isEncryptionAvailable: () => available,
    encryptString(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]);
    },
    decryptString(sealed) {
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
      decipher.setAuthTag(sealed.subarray(12, 28));
      return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

const fileIn = async (): Promise<string> => join(await mkdtemp(join(tmpdir(), 'adcap-secrets-')), 'secrets.json');

describe('SafeSecretStore', () => {
  it('keeps only ciphertext on disk, in a 0600 file', async () => {
    const file = await fileIn();
    const store = new SafeSecretStore(file, keychain());
    await store.set('acme/gh', 'GITHUB_TOKEN', 'ghp_secretvalue');
    expect(await store.get('acme/gh', 'GITHUB_TOKEN')).toBe('ghp_secretvalue');
    expect(await store.get('acme/other', 'GITHUB_TOKEN')).toBeUndefined();
    const raw = await readFile(file, 'utf8');
    expect(raw).not.toContain('ghp_secretvalue');
    expect(raw).toContain('acme/gh GITHUB_TOKEN');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await store.list()).toEqual([{ capability: 'acme/gh', variable: 'GITHUB_TOKEN' }]);
  });

  it('treats a value sealed under another key as absent, and stores nothing without OS encryption', async () => {
    const file = await fileIn();
    await new SafeSecretStore(file, keychain()).set('acme/gh', 'GITHUB_TOKEN', 'v');
    expect(await new SafeSecretStore(file, keychain()).get('acme/gh', 'GITHUB_TOKEN')).toBeUndefined();
    const plainOnly = new SafeSecretStore(await fileIn(), keychain(false));
    expect(plainOnly.persistent).toBe(false);
    await plainOnly.set('acme/gh', 'GITHUB_TOKEN', 'v');
    expect(await plainOnly.get('acme/gh', 'GITHUB_TOKEN')).toBeUndefined();
    await expect(stat(plainOnly.file)).rejects.toThrow();
  });
});

describe('SecretBroker', () => {
  async function broker(options: { window?: boolean; timeoutMs?: number } = {}) {
    const store = new SafeSecretStore(await fileIn(), keychain());
    const prompts: SecretRequest[] = [];
    const b = new SecretBroker({
      store,
      ask: (r) => (options.window === false ? false : (prompts.push(r), true)),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
    return { b, store, prompts };
  }
  const req = { capability: 'acme/gh', tool: 'issues', variable: 'GITHUB_TOKEN' };
  const tick = () => new Promise((r) => setTimeout(r, 5));

  it('asks the window once, stores the answer, and answers from the store afterwards', async () => {
    const { b, store, prompts } = await broker();
    const first = b.resolve(req);
    const concurrent = b.resolve({ ...req, tool: 'other_tool' });
    await tick();
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatchObject(req);
    expect(prompts[0]!.request).toMatch(/^sr_[A-Za-z0-9_-]{16,64}$/);
    expect(b.provide(prompts[0]!.request, 'ghp_value')).toBe(true);
    expect(await first).toBe('ghp_value');
    expect(await concurrent).toBe('ghp_value');
    expect(await store.get('acme/gh', 'GITHUB_TOKEN')).toBe('ghp_value');
    expect(await b.resolve(req)).toBe('ghp_value');
    expect(prompts).toHaveLength(1);
    // An answer to a request that is already settled is refused.
    expect(b.provide(prompts[0]!.request, 'again')).toBe(false);
  });

  it('a declined prompt stores nothing and asks again next time', async () => {
    const { b, store, prompts } = await broker();
    const run = b.resolve(req);
    await tick();
    b.provide(prompts[0]!.request, null);
    expect(await run).toBeNull();
    expect(await store.get('acme/gh', 'GITHUB_TOKEN')).toBeUndefined();
    const again = b.resolve(req);
    await tick();
    expect(prompts).toHaveLength(2);
    b.declineAll();
    expect(await again).toBeNull();
    expect(b.pending).toEqual([]);
  });

  it('without a window, or past the timeout, the run goes on without the value', async () => {
    const none = await broker({ window: false });
    expect(await none.b.resolve(req)).toBeNull();
    const slow = await broker({ timeoutMs: 30 });
    expect(await slow.b.resolve(req)).toBeNull();
    expect(slow.prompts).toHaveLength(1);
    expect(slow.b.pending).toEqual([]);
  });

  it('refuses a variable name that no env:read permission could carry', async () => {
    const { b, prompts } = await broker();
    expect(await b.resolve({ ...req, variable: 'BAD NAME' })).toBeNull();
    expect(prompts).toEqual([]);
  });
});
