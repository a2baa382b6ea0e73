// sdk/README.md promises a runnable host example, run here as a host
// would run it: from the packed SDK (`npm run pack:sdk`), installed with npm into a folder outside
// the repository, with no ARCOTHEON_* variable. sdk/examples/host.mjs is copied there and run; each
// step of the host contract is checked in its output, including resume, typed change events from a
// second process (the package's own adcap), the Sandbox hook and a damaged install listed and repaired.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packSdk } from './helpers/pack-sdk.js';
import { userEnv } from './helpers/user-env.js';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('..', import.meta.url));

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-host-example-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('sdk/examples/host.mjs from the packed SDK', () => {
  it('runs the whole host contract offline outside the repository', { timeout: 600_000 }, async () => {
    const user = join(work, 'user');
    await mkdir(user);
    const env = userEnv(user);
    const { tarball } = await packSdk(join(work, 'pack'), env);

    const app = join(work, 'host-app');
    await mkdir(app);
    await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'a-host', private: true, type: 'module' }));
    await run('npm', ['install', tarball, '--no-audit', '--no-fund'], { cwd: app, env, maxBuffer: 64 * 1024 * 1024 });
    await copyFile(join(REPO, 'sdk', 'examples', 'host.mjs'), join(app, 'host.mjs'));

    const home = join(work, 'home');
    const { stdout: out } = await run(process.execPath, [join(app, 'host.mjs'), home], { cwd: app, env, timeout: 240_000 });
    expect(out).toMatch(/search "csv": acme\/csv-summary@/);
    expect(out).toMatch(/new permission: Read files in the folder you choose/);
    expect(out).toMatch(/installed: arcotheon\/workspace-stats@1\.2\.0, acme\/csv-summary@1\.0\.0, acme\/data-report@1\.0\.0/);
    expect(out).toMatch(/skill for the agent: .*skills\/workspace-stats/);
    expect(out).toMatch(/find_todos \(bubblewrap, \d+ ms\): .*"tag":"TODO".*"tag":"FIXME"/);
    expect(out).toMatch(/workflow stopped for the agent at "report"/);
    expect(out).toMatch(/workflow resumed and done: output summary, quality; steps tool:summary tool:quality agent:report/);
    expect(out).toMatch(/doctor: ok/);
    // A change made by another process (adcap grants --revoke), then one made here.
    expect(out).toMatch(/event: grants-changed arcotheon\/workspace-stats \(removed: fs:read:workspace, added: none\)/);
    expect(out).toMatch(/not granted, as expected: missing fs:read:workspace/);
    expect(out).toMatch(/event: grants-changed arcotheon\/workspace-stats \(removed: none, added: fs:read:workspace\)/);
    expect(out).toMatch(/sandbox hook: ran in host-jail, spec\.tmpDir existed at wrap\(\): true, 2 notes found/);
    expect(out).toMatch(/listed damaged: acme\/csv-summary@1\.0\.0: a repair rebuilds its state with 1\.0\.0 active/);
    expect(out).toMatch(/repaired: damaged-state acme\/csv-summary: rebuilt with 1\.0\.0 active/);
    expect(out).toMatch(/listed after repair: acme\/csv-summary ok, acme\/data-report ok, arcotheon\/workspace-stats ok/);
    expect(out).toMatch(/audit log: \d+ lines, chain intact/);
    expect(out).toMatch(/refused as expected: E_INPUT: /);
  });
});
