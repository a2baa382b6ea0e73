/**
 * DESIGN §10 metadata caps: a client reads at most 64 MiB of catalogue by default, so a registry of
 * 100,000 capabilities (46 MiB with the bench's texts) loads; more is E_DOWNLOAD (the download
 * stops at the cap: attacks.test.ts, with an endless body).
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestRegistry } from '../../../helpers/test-registry.js';

let reg: TestRegistry;
let home: string;
const MiB = 1024 * 1024;

beforeEach(async () => {
  reg = await TestRegistry.create();
  home = await mkdtemp(join(tmpdir(), 'adcap-cap-home-'));
  await reg.addPublisher('acme');
  await reg.publish({ id: 'acme/pdf', version: '1.0.0', summary: 'Extract PDF text' });
  await reg.build();
});
afterEach(async () => {
  await reg.cleanup();
  await rm(home, { recursive: true, force: true });
});

describe('the catalogue cap', () => {
  it('accepts a signed catalogue over the former 16 MiB cap', async () => {
    // Unknown payload fields are tolerated (registry-1.json), so a padded catalogue is a valid one.
    await reg.resignCatalogue((payload) => ({ ...payload, sequence: payload.sequence + 1, padding: 'x'.repeat(20 * MiB) }));
    expect((await stat(join(reg.dir, 'v1', 'catalog.json'))).size).toBeGreaterThan(20 * MiB);
    const loaded = await reg.client(home).update();
    expect(Object.keys(loaded.payload.capabilities)).toEqual(['acme/pdf']);
    expect((await reg.client(home).catalogue({ refresh: 'never' })).payload.sequence).toBe(loaded.payload.sequence);
  }, 120_000);
});
