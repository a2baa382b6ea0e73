/**
 * A registry on this computer read as v2 (the embedded example registry is one): a new client, as
 * in each new process, reads its stored top level again only when the registry's v2/catalog.json
 * changed. It compared v1/'s file with the stored v2 top level, which never match, so every search
 * of a new process fetched, verified and rewrote the remote as if it had changed.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestRegistry } from '../../../helpers/test-registry.js';

let reg: TestRegistry;
let home: string;
const remoteFile = (name: string): Promise<string> => readFile(join(home, 'remotes', 'test', name), 'utf8');

beforeEach(async () => {
  reg = await TestRegistry.create();
  home = await mkdtemp(join(tmpdir(), 'adcap-local-v2-'));
  await reg.addPublisher('acme');
  await reg.publish({ id: 'acme/pdf', version: '1.0.0', summary: 'Extract PDF text' });
  await reg.build();
});
afterEach(async () => {
  await reg.cleanup();
  await rm(home, { recursive: true, force: true });
});

describe('a local registry read as v2', () => {
  it('is not read again by a new client while its top level is unchanged; it is once that changes', async () => {
    expect((await reg.client(home, { layout: 'auto' }).update()).layout).toBe('v2');
    const state = await remoteFile('state.json');
    const attempt = await remoteFile('attempt.json');
    await new Promise((resolve) => setTimeout(resolve, 20)); // a re-read would record a later time
    const hits = await reg.client(home, { layout: 'auto' }).search('pdf');
    expect(hits.map((hit) => hit.id)).toEqual(['acme/pdf']);
    expect(await remoteFile('state.json')).toBe(state);
    expect(await remoteFile('attempt.json')).toBe(attempt);
    // Published and built again: the next new client reads the new top level at once.
    await reg.publish({ id: 'acme/pdf-forms', version: '1.0.0', summary: 'Fill PDF forms' });
    await reg.build();
    expect((await reg.client(home, { layout: 'auto' }).search('pdf')).map((hit) => hit.id).sort()).toEqual(['acme/pdf', 'acme/pdf-forms']);
    expect(await remoteFile('state.json')).not.toBe(state);
  });
});
