import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  addRemote,
  getRemote,
  listRemotes,
  normalizeRemoteUrl,
  removeRemote,
  updateHomeConfig,
} from '../../../sdk/src/registry/remotes.js';
import { generateKey } from '../../../sdk/src/trust/keys.js';

let home: string;
const key = generateKey();

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'adcap-remotes-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('remotes in home/config.json', () => {
  it('adds, lists, finds and removes a remote with its pinned root key', async () => {
    await addRemote(home, { name: 'examples', url: 'https://registry.example/v1', rootKeys: [key.publicKey] });
    expect(await listRemotes(home)).toEqual([{ name: 'examples', url: 'https://registry.example/v1/', rootKeys: [key.publicKey] }]);
    expect((await getRemote(home, 'examples')).url).toBe('https://registry.example/v1/');
    await mkdir(join(home, 'remotes', 'examples'), { recursive: true });
    await writeFile(join(home, 'remotes', 'examples', 'catalog.json'), '{}');
    await removeRemote(home, 'examples');
    expect(await listRemotes(home)).toEqual([]);
    await expect(readFile(join(home, 'remotes', 'examples', 'catalog.json'))).rejects.toThrow();
  });

  it('keeps settings it does not own when it rewrites the file', async () => {
    await writeFile(join(home, 'config.json'), JSON.stringify({ settings: { theme: 'dark' }, remotes: [] }));
    await addRemote(home, { name: 'a', url: 'file:///srv/registry/v1/', rootKeys: [key.publicKey], minSequence: 7 });
    const written = JSON.parse(await readFile(join(home, 'config.json'), 'utf8')) as Record<string, unknown>;
    expect(written['settings']).toEqual({ theme: 'dark' });
    expect(written['remotes']).toEqual([{ name: 'a', url: 'file:///srv/registry/v1/', rootKeys: [key.publicKey], minSequence: 7 }]);
  });

  it('refuses a duplicate name, a bad root key, a bad name and a non-loopback http URL', async () => {
    await addRemote(home, { name: 'a', url: 'http://127.0.0.1:9/v1/', rootKeys: [key.publicKey] });
    await expect(addRemote(home, { name: 'a', url: 'https://x.example/v1/', rootKeys: [key.publicKey] })).rejects.toMatchObject({
      code: 'E_USAGE',
    });
    await expect(addRemote(home, { name: 'b', url: 'https://x.example/v1/', rootKeys: ['not-a-key'] })).rejects.toMatchObject({
      code: 'E_USAGE',
    });
    await expect(addRemote(home, { name: '../evil', url: 'https://x.example/v1/', rootKeys: [key.publicKey] })).rejects.toMatchObject({
      code: 'E_USAGE',
    });
    await expect(addRemote(home, { name: 'c', url: 'http://registry.example/v1/', rootKeys: [key.publicKey] })).rejects.toMatchObject({
      code: 'E_DOWNLOAD',
    });
    await expect(removeRemote(home, 'nope')).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
  });

  it('serializes concurrent read-modify-write updates under the config lock', async () => {
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        updateHomeConfig(home, async (config) => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          config[`k${i}`] = i;
        }),
      ),
    );
    const written = JSON.parse(await readFile(join(home, 'config.json'), 'utf8')) as Record<string, unknown>;
    for (let i = 0; i < 8; i++) expect(written[`k${i}`]).toBe(i);
  });

  it('normalizes a URL to the v1/ folder', () => {
    expect(normalizeRemoteUrl('https://r.example/v1/catalog.json')).toBe('https://r.example/v1/');
    expect(normalizeRemoteUrl('https://r.example/v1')).toBe('https://r.example/v1/');
  });
});
