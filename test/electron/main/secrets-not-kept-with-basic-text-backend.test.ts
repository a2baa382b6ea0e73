// On Linux without a keyring, Electron's safeStorage still reports encryption as available, with its
// `basic_text` backend: Chromium's OSCrypt "v10" format, AES-128-CBC under a key derived from the
// fixed password "peanuts". A value SafeSecretStore kept there could be read back from secrets.json
// by anyone who can read the file, with no keychain at all. Now nothing is stored under basic_text:
// the value is asked for each time, and the first prompt says why (SECURITY.md "The desktop app").
// safeStorage is replaced by a faithful copy of that backend (the real one needs the Electron binary).
import { createCipheriv, createDecipheriv, pbkdf2Sync } from 'node:crypto';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SecretRequest } from '../../../electron/common/desktop.js';
import { NOT_KEPT_NOTICE, SafeSecretStore, SecretBroker, type Encryptor } from '../../../electron/main/secrets.js';

/** Chromium's well-known basic_text key: PBKDF2-SHA1("peanuts", "saltysalt", 1 round, 16 bytes). */
const BASIC_TEXT_KEY = pbkdf2Sync('peanuts', 'saltysalt', 1, 16, 'sha1');
const IV = Buffer.alloc(16, 0x20);

function basicText(backend = 'basic_text'): Encryptor {
  return {
    isEncryptionAvailable: () => true,
    getSelectedStorageBackend: () => backend,
    encryptString(plain) {
      const cipher = createCipheriv('aes-128-cbc', BASIC_TEXT_KEY, IV);
      return Buffer.concat([Buffer.from('v10'), cipher.update(plain, 'utf8'), cipher.final()]);
    },
    decryptString(sealed) {
      const decipher = createDecipheriv('aes-128-cbc', BASIC_TEXT_KEY, IV);
      return Buffer.concat([decipher.update(sealed.subarray(3)), decipher.final()]).toString('utf8');
    },
  };
}

/** What another local user does with a copy of secrets.json: decrypt every value with the public key. */
async function recoverable(file: string): Promise<string[]> {
  const raw = await readFile(file, 'utf8').catch(() => null);
  if (raw === null) return [];
  const out: string[] = [];
  for (const text of raw.match(/"[A-Za-z0-9+/=]{20,}"/g) ?? []) {
    try {
      out.push(basicText().decryptString(Buffer.from(text.slice(1, -1), 'base64')));
    } catch {
      // not a basic_text value
    }
  }
  return out;
}

const fileIn = async (): Promise<string> => join(await mkdtemp(join(tmpdir(), 'adcap-basic-text-')), 'secrets.json');
const req = { capability: 'acme/gh', tool: 'issues', variable: 'GITHUB_TOKEN' };
const tick = () => new Promise((r) => setTimeout(r, 5));

describe('SafeSecretStore with the basic_text backend', () => {
  it('stores nothing a file reader could decrypt, and counts as not persistent', async () => {
    const file = await fileIn();
    const store = new SafeSecretStore(file, basicText(), 'linux');
    expect(store.persistent).toBe(false);
    await store.set('acme/gh', 'GITHUB_TOKEN', 'ghp_secretvalue');
    expect(await recoverable(file)).toEqual([]);
    await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await store.get('acme/gh', 'GITHUB_TOKEN')).toBeUndefined();
  });

  it('a control: the same fake with a keyring backend keeps the value (so the refusal above is the backend)', async () => {
    const file = await fileIn();
    const store = new SafeSecretStore(file, basicText('gnome_libsecret'), 'linux');
    expect(store.persistent).toBe(true);
    await store.set('acme/gh', 'GITHUB_TOKEN', 'ghp_secretvalue');
    expect(await store.get('acme/gh', 'GITHUB_TOKEN')).toBe('ghp_secretvalue');
  });

  it('a backend not known yet ("unknown", before the app is ready) keeps nothing either', async () => {
    expect(new SafeSecretStore(await fileIn(), basicText('unknown'), 'linux').persistent).toBe(false);
  });

  it('a value kept earlier is neither handed out nor left in the file once a new one is given', async () => {
    const file = await fileIn();
    // What the store did before under basic_text (the fake's cipher is the same whatever the backend says).
    await new SafeSecretStore(file, basicText('gnome_libsecret'), 'linux').set('acme/gh', 'GITHUB_TOKEN', 'ghp_old');
    expect(await recoverable(file)).toEqual(['ghp_old']);
    const store = new SafeSecretStore(file, basicText(), 'linux');
    expect(await store.get('acme/gh', 'GITHUB_TOKEN')).toBeUndefined();
    await store.set('acme/gh', 'GITHUB_TOKEN', 'ghp_new');
    expect(await recoverable(file)).toEqual([]);
  });
});

describe('SecretBroker over a store that keeps nothing', () => {
  it('asks each time, and says why once', async () => {
    const file = await fileIn();
    const prompts: SecretRequest[] = [];
    const b = new SecretBroker({ store: new SafeSecretStore(file, basicText(), 'linux'), ask: (r) => (prompts.push(r), true) });
    for (const value of ['one', 'two', 'three']) {
      const run = b.resolve(req);
      await tick();
      b.provide(prompts.at(-1)!.request, value);
      expect(await run).toBe(value);
    }
    expect(prompts).toHaveLength(3);
    expect(prompts.map((p) => p.kept)).toEqual([false, false, false]);
    expect(prompts.map((p) => p.notice)).toEqual([NOT_KEPT_NOTICE, undefined, undefined]);
    expect(await recoverable(file)).toEqual([]);
  });
});
