import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adcap as runAdcap, assertBuilt, ok, type Run } from './helpers/adcap.js';

/**
 * The authoring flow through the BUILT bin (`npm run e2e` builds it first), as real child
 * processes: exit codes, stdout JSON and the `error E_CODE: sentence` line (DESIGN §8).
 */

function adcap(args: string[], cwd: string): Promise<Run> {
  return runAdcap(args, { cwd, env: { ...process.env, ARCOTHEON_HOME: join(cwd, 'home') } });
}

let work: string;
beforeAll(async () => {
  await assertBuilt();
  work = await mkdtemp(join(tmpdir(), 'adcap-e2e-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('adcap authoring, end to end', () => {
  it('keygen -> init -> build --sign -> verify --trust -> inspect --json -> sign (second key) -> verify', async () => {
    const first = JSON.parse(ok(await adcap(['keygen', '-o', 'first.key.json', '--json'], work)).stdout) as {
      keyId: string;
      publicKey: string;
    };
    expect(first.keyId).toMatch(/^[0-9a-f]{64}$/);
    expect((await stat(join(work, 'first.key.json'))).mode & 0o777).toBe(0o600);

    ok(await adcap(['init', 'hello-world'], work));
    const built = JSON.parse(
      ok(await adcap(['build', 'hello-world', '-o', 'hello.adcap', '--sign', 'first.key.json', '--json'], work)).stdout,
    ) as {
      id: string;
      manifestSha256: string;
      signedBy: string[];
    };
    expect(built).toMatchObject({ id: 'local/hello-world', signedBy: [first.keyId] });

    const verified = JSON.parse(ok(await adcap(['verify', 'hello.adcap', '--trust', first.publicKey, '--json'], work)).stdout) as unknown;
    expect(verified).toEqual({
      ok: true,
      id: 'local/hello-world',
      version: '0.1.0',
      manifestSha256: built.manifestSha256,
      signedBy: [first.keyId],
    });

    const inspected = JSON.parse(ok(await adcap(['inspect', 'hello.adcap', '--json'], work)).stdout) as {
      manifest: { id: string; files: unknown[] };
      manifestSha256: string;
      archiveSha256: string;
      size: number;
      entries: string[];
      signature: { keyIds: string[]; payload: Record<string, unknown> } | null;
    };
    expect(inspected.manifest.id).toBe('local/hello-world');
    expect(inspected.manifestSha256).toBe(built.manifestSha256);
    expect(inspected.size).toBe((await stat(join(work, 'hello.adcap'))).size);
    expect(inspected.entries[0]).toBe('capability.json');
    expect(inspected.entries.at(-1)).toBe('SIGNATURE.json');
    expect(inspected.signature).toEqual({
      keyIds: [first.keyId],
      payload: { adcap: '1.0', id: 'local/hello-world', version: '0.1.0', manifestSha256: built.manifestSha256 },
    });

    const second = JSON.parse(ok(await adcap(['--json', 'keygen', '-o', 'second.key.json'], work)).stdout) as {
      keyId: string;
      publicKey: string;
    };
    const signed = JSON.parse(ok(await adcap(['sign', 'hello.adcap', '--key', 'second.key.json', '--json'], work)).stdout) as {
      signatures: string[];
      added: string[];
    };
    expect(signed).toMatchObject({ signatures: [first.keyId, second.keyId], added: [second.keyId] });

    const both = JSON.parse(
      ok(await adcap(['verify', 'hello.adcap', '--trust', first.publicKey, '--trust', second.publicKey, '--json'], work)).stdout,
    ) as {
      signedBy: string[];
      manifestSha256: string;
    };
    expect(both).toMatchObject({ signedBy: [first.keyId, second.keyId], manifestSha256: built.manifestSha256 });
    const human = ok(await adcap(['verify', 'hello.adcap', '--trust', second.publicKey], work));
    expect(human.stdout).toContain('ok local/hello-world@0.1.0');
    expect(human.stderr).toBe('');
  });

  it('verify by an untrusted key: exit 1, JSON { ok:false } on stdout, error line on stderr', async () => {
    ok(await adcap(['keygen', '-o', 'signer.key.json'], work));
    const stranger = JSON.parse(ok(await adcap(['keygen', '-o', 'stranger.key.json', '--json'], work)).stdout) as { publicKey: string };
    ok(await adcap(['init', 'untrusted'], work));
    ok(await adcap(['build', 'untrusted', '-o', 'untrusted.adcap', '--sign', 'signer.key.json'], work));
    const run = await adcap(['verify', 'untrusted.adcap', '--trust', stranger.publicKey, '--json'], work);
    expect(run.code).toBe(1);
    const body = JSON.parse(run.stdout) as { ok: boolean; code: string; message: string };
    expect(body).toMatchObject({ ok: false, code: 'E_UNTRUSTED' });
    expect(run.stderr).toBe(`error E_UNTRUSTED: ${body.message}\n`);
  });

  it("a tampered package fails verify with the reader's code and exit 1", async () => {
    ok(await adcap(['init', 'tamper'], work));
    ok(await adcap(['build', 'tamper', '-o', 'tamper.adcap'], work));
    const bytes = await readFile(join(work, 'tamper.adcap'));
    await writeFile(join(work, 'tamper.adcap'), Buffer.concat([bytes, Buffer.from('trailing garbage')]));
    const run = await adcap(['verify', 'tamper.adcap'], work);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error E_GZIP: \S/);
    expect(run.stdout).toBe('');
  });

  it('usage errors exit 2 with "error E_USAGE: ..."', async () => {
    const unknown = await adcap(['verify', 'x.adcap', '--frobnicate'], work);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error E_USAGE: Unknown option '--frobnicate'/m);
    const noCommand = await adcap([], work);
    expect(noCommand.code).toBe(2);
    expect(noCommand.stderr).toMatch(/^error E_USAGE: /m);
    const overwrite = await adcap(['keygen', '-o', 'signer.key.json'], work);
    expect(overwrite.code).toBe(2);
    expect(overwrite.stderr).toMatch(/^error E_USAGE: .*already exists/m);
    const missing = await adcap(['inspect', 'nope.adcap', '--json'], work);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ ok: false, code: 'E_IO' });
  });
});
