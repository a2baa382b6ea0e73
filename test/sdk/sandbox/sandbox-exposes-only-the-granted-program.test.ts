// Kept closed ("process:exec exposes the program's folder"): granting process:exec:rgx
// mounted the whole folder above ~/.cargo/bin, exposing credentials and keyrings. Now only the
// executable is exposed (plus lib folders of a prefix outside the home), and the permission text
// says what the program can read.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describePermission } from '../../../sdk/src/permissions/describe.js';
import { BubblewrapSandbox, planBubblewrap } from '../../../sdk/src/sandbox/bubblewrap.js';
import { buildSandboxExecProfile } from '../../../sdk/src/sandbox/sandbox-exec.js';
import { makeFixture, runSandboxed, type Fixture } from './sandbox-fixture.js';

const sandbox = new BubblewrapSandbox();
let fx: Fixture;
let cargo: string;
let opt: string;

// The tool runs the granted program, then tries to read what lies around it.
const TOOL = String.raw`
const fs = require('node:fs');
const { spawnSync } = require('node:child_process');
const cfg = JSON.parse(process.argv[1]);
const r = {};
const attempt = (name, fn) => {
  try {
    r[name] = { ok: true, detail: String(fn()) };
  } catch (e) {
    r[name] = { ok: false, detail: e.code ?? e.message };
  }
};
attempt('runProgram', () => {
  const p = spawnSync(cfg.program, [], { encoding: 'utf8' });
  if (p.status !== 0) throw new Error('exit ' + p.status + ' ' + p.stderr);
  return p.stdout.trim();
});
for (const [name, file] of Object.entries(cfg.read)) attempt(name, () => fs.readFileSync(file, 'utf8'));
attempt('listBin', () => fs.readdirSync(cfg.binDir).join(','));
process.stdout.write(JSON.stringify(r) + '\n');
`;

beforeAll(async () => {
  expect(await sandbox.available()).toBe(true);
  fx = makeFixture();
  cargo = path.join(fx.home, '.cargo');
  fs.mkdirSync(path.join(cargo, 'bin'), { recursive: true });
  fs.mkdirSync(path.join(cargo, 'registry'), { recursive: true });
  fs.writeFileSync(path.join(cargo, 'credentials.toml'), '[registry]\ntoken = "CARGO-SECRET"\n');
  fs.writeFileSync(path.join(cargo, 'registry', 'keyring'), 'KEYRING');
  // The program itself tries to read the credentials next to it, then reports.
  fs.writeFileSync(
    path.join(cargo, 'bin', 'rgx'),
    `#!/bin/sh\ncat ${path.join(cargo, 'credentials.toml')} 2>/dev/null && echo program-read-credentials\necho rgx-ran\n`,
    { mode: 0o755 },
  );
  fs.writeFileSync(path.join(cargo, 'bin', 'other-tool'), '#!/bin/sh\necho other\n', { mode: 0o755 });
  // A program installed outside the home, with a library folder and a private sibling.
  opt = path.join(fx.root, 'opt', 'tool');
  for (const d of ['bin', 'lib', 'etc']) fs.mkdirSync(path.join(opt, d), { recursive: true });
  fs.writeFileSync(path.join(opt, 'bin', 'optool'), `#!/bin/sh\ncat ${path.join(opt, 'lib', 'data.txt')}\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(opt, 'lib', 'data.txt'), 'library-data');
  fs.writeFileSync(path.join(opt, 'etc', 'secret.conf'), 'OPT-SECRET');
});
afterAll(() => fx.remove());

const envWith = (dir: string): Record<string, string> => ({ PATH: `${dir}:/usr/bin:/bin`, LANG: 'C.UTF-8' });

describe('process:exec of a program in ~/.cargo/bin', () => {
  it('runs the program but exposes none of ~/.cargo around it, to the tool or to the program', async () => {
    const bin = path.join(cargo, 'bin');
    const cfg = {
      program: 'rgx',
      binDir: bin,
      read: {
        credentials: path.join(cargo, 'credentials.toml'),
        keyring: path.join(cargo, 'registry', 'keyring'),
        sibling: path.join(bin, 'other-tool'),
      },
    };
    const result = await runSandboxed(sandbox, fx.spec(['process:exec:rgx'], ['-e', TOOL, JSON.stringify(cfg)], { env: envWith(bin) }));
    const r = JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}') as Record<string, { ok: boolean; detail: string }>;
    expect(r.runProgram).toEqual({ ok: true, detail: 'rgx-ran' }); // and not "program-read-credentials"
    for (const name of ['credentials', 'keyring', 'sibling']) expect(r[name]?.ok, name).toBe(false);
    expect(r.listBin).toEqual({ ok: true, detail: 'rgx' });
  });

  it('plans a bind of the executable alone', () => {
    const o = planBubblewrap(fx.spec(['process:exec:rgx'], [], { env: envWith(path.join(cargo, 'bin')) }), {}).options.join(' ');
    expect(o).toContain(`--ro-bind ${path.join(cargo, 'bin', 'rgx')} ${path.join(cargo, 'bin', 'rgx')}`);
    expect(o).not.toContain(`--ro-bind ${cargo} `);
    expect(o).not.toContain(`--ro-bind ${path.join(cargo, 'bin')} `);
  });

  it('the macOS profile allows reading the executable, not ~/.cargo', () => {
    const profile = buildSandboxExecProfile(fx.spec(['process:exec:rgx'], [], { env: envWith(path.join(cargo, 'bin')) }), {
      home: path.join(fx.root, 'mac-home'),
      tmp: path.join(fx.root, 'mac-tmp'),
    });
    expect(profile).toContain(`(literal "${path.join(cargo, 'bin', 'rgx')}")`);
    expect(profile).not.toContain(`(subpath "${cargo}")`);
  });
});

describe('process:exec of a program installed outside the home', () => {
  it("exposes the executable and its prefix's lib folder, not the prefix's other folders", async () => {
    const bin = path.join(opt, 'bin');
    const cfg = {
      program: 'optool',
      binDir: bin,
      read: { secret: path.join(opt, 'etc', 'secret.conf'), lib: path.join(opt, 'lib', 'data.txt') },
    };
    const result = await runSandboxed(sandbox, fx.spec(['process:exec:optool'], ['-e', TOOL, JSON.stringify(cfg)], { env: envWith(bin) }));
    const r = JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}') as Record<string, { ok: boolean; detail: string }>;
    expect(r.runProgram).toEqual({ ok: true, detail: 'library-data' });
    expect(r.lib?.ok).toBe(true);
    expect(r.secret?.ok).toBe(false);
  });
});

it('the permission text says what the program can read', () => {
  expect(describePermission('process:exec:rgx')).toContain('can read only what the tool can, not the folder it is installed in');
});
