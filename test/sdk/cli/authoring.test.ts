import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaffoldCapability, slugify } from '../../../sdk/src/cli/commands/authoring.js';
import { readPackage } from '../../../sdk/src/format/package-read.js';
import { adcap } from './run-cli.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-cli-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const run = (argv: string[]) => adcap(argv, { cwd: work });
const json = <T>(stdout: string): T => JSON.parse(stdout) as T;

describe('authoring commands, in-process', () => {
  it('keygen -> init -> build --sign -> verify --trust -> inspect -> sign -> verify', async () => {
    const key1 = await run(['keygen', '-o', 'key1.json', '--json']);
    expect(key1.code, key1.stderr).toBe(0);
    const k1 = json<{ keyId: string; publicKey: string; file: string }>(key1.stdout);
    expect(k1.file).toBe(join(work, 'key1.json'));
    expect((await stat(k1.file)).mode & 0o777).toBe(0o600);

    const init = await run(['init', 'weather-tools']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('local/weather-tools');

    const build = await run(['build', 'weather-tools', '-o', 'w.adcap', '--sign', 'key1.json', '--json']);
    expect(build.code, build.stderr).toBe(0);
    const built = json<{ id: string; version: string; manifestSha256: string; signedBy: string[]; file: string }>(build.stdout);
    expect(built).toMatchObject({ id: 'local/weather-tools', version: '0.1.0', signedBy: [k1.keyId], file: join(work, 'w.adcap') });

    const verify = await run(['verify', 'w.adcap', '--trust', k1.publicKey, '--json']);
    expect(verify.code, verify.stderr).toBe(0);
    expect(json(verify.stdout)).toEqual({
      ok: true,
      id: 'local/weather-tools',
      version: '0.1.0',
      manifestSha256: built.manifestSha256,
      signedBy: [k1.keyId],
    });

    const inspect = await run(['--json', 'inspect', 'w.adcap']);
    expect(inspect.code, inspect.stderr).toBe(0);
    const shown = json<Record<string, unknown>>(inspect.stdout);
    expect(Object.keys(shown).sort()).toEqual(['archiveSha256', 'entries', 'manifest', 'manifestSha256', 'signature', 'size']);
    expect(shown.entries).toEqual(['capability.json', 'README.md', 'skills/weather-tools/SKILL.md', 'tools/greet.mjs', 'SIGNATURE.json']);
    expect(shown.signature).toEqual({
      keyIds: [k1.keyId],
      payload: { adcap: '1.0', id: 'local/weather-tools', version: '0.1.0', manifestSha256: built.manifestSha256 },
    });
    expect((shown.manifest as { id: string }).id).toBe('local/weather-tools');

    const key2 = json<{ keyId: string; publicKey: string }>((await run(['keygen', '--json', '-o', 'key2.json'])).stdout);
    const sign = await run(['sign', 'w.adcap', '--key', 'key2.json', '--json']);
    expect(sign.code, sign.stderr).toBe(0);
    expect(json(sign.stdout)).toMatchObject({
      signatures: [k1.keyId, key2.keyId],
      added: [key2.keyId],
      manifestSha256: built.manifestSha256,
    });

    const both = await run(['verify', 'w.adcap', '--trust', k1.publicKey, '--trust', key2.publicKey, '--json']);
    expect(json<{ signedBy: string[] }>(both.stdout).signedBy).toEqual([k1.keyId, key2.keyId]);
    const onlySecond = await run(['verify', 'w.adcap', '--trust', key2.publicKey]);
    expect(onlySecond.code).toBe(0);
    expect(onlySecond.stdout).toContain(`signed by trusted key ${key2.keyId}`);

    // Human output of inspect names the package and its signers.
    const human = await run(['inspect', 'w.adcap']);
    expect(human.stdout).toContain('local/weather-tools@0.1.0');
    expect(human.stdout).toContain(key2.keyId);
  });

  it('verify with an untrusted key: exit 1, { ok:false } on stdout, error line on stderr', async () => {
    await run(['keygen', '-o', 'signer.json']);
    await run(['keygen', '-o', 'stranger.json']);
    await run(['init', 'proj-u']);
    expect((await run(['build', 'proj-u', '-o', 'u.adcap', '--sign', 'signer.json'])).code).toBe(0);
    const stranger = JSON.parse(await readFile(join(work, 'stranger.json'), 'utf8')) as { publicKey: string };
    const result = await run(['verify', 'u.adcap', '--trust', stranger.publicKey, '--json']);
    expect(result.code).toBe(1);
    const body = json<{ ok: boolean; code: string; message: string }>(result.stdout);
    expect(body).toMatchObject({ ok: false, code: 'E_UNTRUSTED' });
    expect(result.stderr.trim()).toBe(`error E_UNTRUSTED: ${body.message}`);
  });

  it('verify without --trust checks integrity only and says so', async () => {
    await run(['init', 'proj-n']);
    await run(['build', 'proj-n', '-o', 'n.adcap']);
    const result = await run(['verify', 'n.adcap']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('not signed');
    const trusted = await run(['verify', 'n.adcap', '--trust', (await import('../../../sdk/src/trust/keys.js')).generateKey().publicKey]);
    expect(trusted.code).toBe(1);
    expect(trusted.stderr).toMatch(/^error E_UNTRUSTED: .*not signed/m);
  });

  it("verify refuses a tampered package with the reader's code", async () => {
    await run(['init', 'proj-t']);
    await run(['build', 'proj-t', '-o', 't.adcap']);
    const bytes = await readFile(join(work, 't.adcap'));
    await writeFile(join(work, 't.adcap'), bytes.subarray(0, bytes.length - 30));
    const result = await run(['verify', 't.adcap']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error E_(GZIP|TAR): /m);
  });

  it('usage errors: bad --trust, missing -o, keygen over an existing key, init over a capability', async () => {
    const badTrust = await run(['verify', 'x.adcap', '--trust', 'not-a-key']);
    expect(badTrust.code).toBe(2);
    expect(badTrust.stderr).toMatch(/^error E_USAGE: --trust value 1 is not a public key/m);

    const noOut = await run(['build', 'somewhere']);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toMatch(/^error E_USAGE: .*--out/m);

    await run(['keygen', '-o', 'once.json']);
    const before = await readFile(join(work, 'once.json'), 'utf8');
    const again = await run(['keygen', '-o', 'once.json']);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/^error E_USAGE: .*already exists.*--force/m);
    expect(await readFile(join(work, 'once.json'), 'utf8')).toBe(before);
    expect((await run(['keygen', '-o', 'once.json', '--force'])).code).toBe(0);
    expect(await readFile(join(work, 'once.json'), 'utf8')).not.toBe(before);

    await run(['init', 'proj-x']);
    const reinit = await run(['init', 'proj-x']);
    expect(reinit.code).toBe(2);
    expect(reinit.stderr).toMatch(/^error E_USAGE: .*capability\.json already exists/m);

    const badId = await run(['init', 'proj-y', '--id', 'Not An Id']);
    expect(badId.code).toBe(2);

    const badKey = await run(['sign', 'x.adcap', '--key', 'proj-x/capability.json']);
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toMatch(/^error E_USAGE: .*not a usable key file/m);
  });

  it('init --id sets the id; the scaffold builds and its tool answers the wire protocol', async () => {
    expect((await run(['init', 'scaffold', '--id', 'acme/forecast', '--name', 'Forecast'])).code).toBe(0);
    const build = await run(['build', 'scaffold', '-o', 'f.adcap', '--json']);
    expect(build.code, build.stderr).toBe(0);
    const pkg = await readPackage(join(work, 'f.adcap'));
    expect(pkg.manifest).toMatchObject({ id: 'acme/forecast', name: 'Forecast', skills: [{ path: 'skills/forecast' }] });
    expect(pkg.entries).not.toContain('.adcapignore');

    const { spawnSync } = await import('node:child_process');
    const call = { type: 'call', tool: 'greet', input: { name: 'Ada' }, context: {} };
    const tool = spawnSync(process.execPath, [join(work, 'scaffold', 'tools', 'greet.mjs')], {
      input: `${JSON.stringify(call)}\n`,
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(tool.status).toBe(0);
    expect(JSON.parse(tool.stdout.trim())).toEqual({ type: 'result', output: { greeting: 'Hello, Ada!' } });
  });
});

describe('scaffold helpers', () => {
  it('slugify yields a valid skill and capability name', () => {
    expect(slugify('My Cool_Project!!')).toBe('my-cool-project');
    expect(slugify('---')).toBe('my-capability');
    expect(slugify('x'.repeat(100))).toHaveLength(64);
  });

  it('scaffoldCapability names the skill after the capability', () => {
    const s = scaffoldCapability('/tmp/Some Dir');
    expect(s.id).toBe('local/some-dir');
    expect(s.files.map((f) => f.path)).toEqual([
      'capability.json',
      '.adcapignore',
      'README.md',
      'skills/some-dir/SKILL.md',
      'tools/greet.mjs',
    ]);
  });
});
