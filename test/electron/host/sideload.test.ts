import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon } from '@arcotheon/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHostService } from '../../../electron/host/service.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';

/**
 * Sideloading from a file the user picked, in the browser transport: the bytes arrive
 * in ordered chunks under a size cap; more than announced, more than the cap, an oversized chunk,
 * a gap, or too many open uploads are refused, and a refused upload is dropped.
 */
let reg: LifecycleRegistry;

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  await reg.publishAll([{ id: 'acme/lib', version: '1.0.0' }]);
});

async function client(maxSideloadBytes = 1024) {
  const home = await mkdtemp(join(tmpdir(), 'adcap-sideload-'));
  return createHostService(new Arcotheon(reg.options(home)), { maxSideloadBytes }).api;
}

const b64 = (n: number): string => Buffer.alloc(n, 7).toString('base64');

describe('sideload uploads', () => {
  it('refuses a file announced over the cap before any byte is sent', async () => {
    const api = await client(1024);
    expect(await api.sideload.begin({ name: 'big.adcap', size: 1025 })).toMatchObject({
      ok: false,
      error: { code: 'E_LIMIT', message: expect.stringContaining('1024 bytes') },
    });
    expect(await api.sideload.begin({ name: 'ok.adcap', size: 1024 })).toMatchObject({
      ok: true,
      value: { maxBytes: 1024, chunkBytes: 1024 * 1024 },
    });
  });

  it('drops an upload that sends more than it announced', async () => {
    const api = await client(1024);
    const begun = await api.sideload.begin({ name: 'x.adcap', size: 100 });
    if (!begun.ok) throw new Error(begun.error.message);
    expect(await api.sideload.chunk(begun.value.upload, 0, b64(60))).toEqual({ ok: true, value: { received: 60 } });
    expect(await api.sideload.chunk(begun.value.upload, 60, b64(60))).toMatchObject({ ok: false, error: { code: 'E_LIMIT' } });
    expect(await api.sideload.chunk(begun.value.upload, 60, b64(40))).toMatchObject({ ok: false, error: { code: 'E_NOT_FOUND' } });
  });

  it('wants chunks in order and complete before commit', async () => {
    const api = await client(1024);
    const begun = await api.sideload.begin({ name: 'x.adcap', size: 100 });
    if (!begun.ok) throw new Error(begun.error.message);
    expect(await api.sideload.chunk(begun.value.upload, 50, b64(50))).toMatchObject({
      ok: false,
      error: { code: 'E_USAGE', message: expect.stringMatching(/expected offset 0/) },
    });
    expect(await api.sideload.chunk(begun.value.upload, 0, b64(50))).toMatchObject({ ok: true });
    expect(await api.sideload.commit(begun.value.upload)).toMatchObject({
      ok: false,
      error: { code: 'E_USAGE', message: expect.stringMatching(/50 of 100/) },
    });
    expect(await api.sideload.chunk(begun.value.upload, 50, b64(50))).toMatchObject({ ok: true });
    expect(await api.sideload.commit(begun.value.upload)).toMatchObject({
      ok: true,
      value: { size: 100, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
  });

  it('refuses a chunk larger than the chunk size at the schema, before decoding it', async () => {
    const api = await client(8 * 1024 * 1024);
    const begun = await api.sideload.begin({ name: 'x.adcap', size: 4 * 1024 * 1024 });
    if (!begun.ok) throw new Error(begun.error.message);
    expect(await api.sideload.chunk(begun.value.upload, 0, b64(1024 * 1024 + 3))).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
  });

  it('caps the uploads open at once, and a broken package is refused when planned', async () => {
    const api = await client(1024);
    const open = [];
    for (let i = 0; i < 4; i++) open.push(await api.sideload.begin({ name: `f${i}.adcap`, size: 10 }));
    expect(open.every((o) => o.ok)).toBe(true);
    expect(await api.sideload.begin({ name: 'one-more.adcap', size: 10 })).toMatchObject({ ok: false, error: { code: 'E_LIMIT' } });
    const first = open[0];
    if (first === undefined || !first.ok) throw new Error('no upload');
    await api.sideload.chunk(first.value.upload, 0, b64(10));
    const file = await api.sideload.commit(first.value.upload);
    if (!file.ok) throw new Error(file.error.message);
    // Ten bytes of 0x07 are not a gzip stream: the package reader refuses them.
    expect(await api.installs.plan({ sideload: file.value.file })).toMatchObject({ ok: false, error: { code: 'E_GZIP' } });
  });
});
